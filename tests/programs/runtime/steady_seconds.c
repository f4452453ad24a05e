/* steady_seconds.c - a steady load on one thread for SECONDS: main calls
 * leaf() in a loop until then.  Prints its own wall time (CLOCK_MONOTONIC,
 * from main's start to its return) as "wall_ns T".
 * Usage: steady_seconds SECONDS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned sink;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

__attribute__((noinline)) static unsigned leaf(unsigned x) { return x * 2654435761u + 1; }

int main(int argc, char **argv) {
  uint64_t t0 = now_ns();
  if (argc != 2)
    return 2;
  uint64_t end = t0 + (uint64_t)(atof(argv[1]) * 1e9);
  unsigned x = 1;
  while (now_ns() < end)
    for (int i = 0; i < 1000; i++)
      x = leaf(x);
  sink = x;
  printf("wall_ns %llu\n", (unsigned long long)(now_ns() - t0));
  return 0;
}
