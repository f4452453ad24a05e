/* dense_calls.c - call-dense code: main calls an almost empty leaf() N
 * times (N from the command line, default 1 000 000), a nanosecond or two
 * of code between probes, and prints the wall time of the loop by its own
 * clock: "loop_ns NS" (CLOCK_MONOTONIC, read before and after it); then,
 * given a second argument MS, it sleeps MS milliseconds inside main. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void leaf(unsigned long i) { sink += i; }

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
  long long t0 = now_ns();
  for (unsigned long i = 0; i < n; i++)
    leaf(i);
  long long t1 = now_ns();
  printf("loop_ns %lld\n", t1 - t0);
  if (argc > 2)
    usleep((useconds_t)(strtoul(argv[2], NULL, 10) * 1000));
  return 0;
}
