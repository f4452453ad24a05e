/* proportions.c - CPU-bound work in known proportions: per round heavy()
 * computes 3 units and light() 1 unit, each in its own body (exclusive
 * work).  A unit is short (tens of microseconds) next to the kernel's tick,
 * so tick-driven samples do not alias with the rounds.
 * Usage: proportions ROUNDS.  Prints the result; on stderr "cpu_ms N". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

#define UNIT 12000L

__attribute__((noinline)) unsigned long heavy(unsigned long x) { return spin(x, 3 * UNIT); }
__attribute__((noinline)) unsigned long light(unsigned long x) { return spin(x, UNIT); }

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 1000;
  unsigned long x = (unsigned long)argc;
  for (long i = 0; i < rounds; i++)
    x = light(heavy(x));
  struct timespec cpu;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
  printf("%lu\n", x);
  fprintf(stderr, "cpu_ms %ld\n", (long)cpu.tv_sec * 1000 + cpu.tv_nsec / 1000000);
  return 0;
}
