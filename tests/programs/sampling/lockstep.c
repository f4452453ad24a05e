/* lockstep.c - work in lock step with a CPU-time sampler: every round is
 * exactly 1/K of the mean sampling period of the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID, the clock the sampler counts): heavy() computes
 * until 3/4 of the round, light() until its end.  A sampler firing at a
 * fixed period would find the program at nearly the same point of its round
 * sample after sample; one whose period varies finds heavy() in 3/4 of its
 * samples, each independently of the one before.
 * Usage: lockstep HZ K SECONDS.  Prints the rounds made. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

static long cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

__attribute__((noinline)) unsigned long heavy(unsigned long x, long end) {
  while (cpu_ns() < end)
    x = spin(x, 50);
  return x;
}

__attribute__((noinline)) unsigned long light(unsigned long x, long end) {
  while (cpu_ns() < end)
    x = spin(x, 50) ^ 1;
  return x;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: lockstep HZ K SECONDS\n");
    return 2;
  }
  long round = 1000000000L / atol(argv[1]) / atol(argv[2]);
  long start = cpu_ns(), stop = start + (long)(atof(argv[3]) * 1e9), rounds = 0;
  unsigned long x = 1;
  for (long t = start; t < stop; t += round, rounds++)
    x = light(heavy(x, t + round * 3 / 4), t + round);
  printf("%ld rounds (%lu)\n", rounds, x & 1);
  return 0;
}
