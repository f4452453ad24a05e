/* dense_walk.c - call-dense C code with its own measurement: work() walks a
 * complete binary tree of 4095 nodes recursively R times (R from the command
 * line, default 200), a few nanoseconds of code per call, and prints the CPU
 * time of work() by the thread's own clock ("work_ns NS",
 * CLOCK_THREAD_CPUTIME_ID) and the calls of walk() it made ("walk_calls N").
 * Built without the plugin it is the uninstrumented twin whose work_ns is
 * the truth for work()'s Application Inclusive time recorded. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NODES 4095

static unsigned value[NODES];
static unsigned long calls;

__attribute__((noinline)) unsigned long walk(unsigned i) {
  calls++;
  unsigned long s = value[i];
  if (2 * i + 1 < NODES)
    s += walk(2 * i + 1);
  if (2 * i + 2 < NODES)
    s += walk(2 * i + 2);
  return s;
}

__attribute__((noinline)) unsigned long work(unsigned long reps) {
  unsigned long s = 0;
  for (unsigned long r = 0; r < reps; r++)
    s += walk(0);
  return s;
}

static long long cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
  unsigned long reps = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
  for (unsigned i = 0; i < NODES; i++)
    value[i] = i * 2654435761u >> 20;
  long long t0 = cpu_ns();
  unsigned long s = work(reps);
  long long t1 = cpu_ns();
  printf("sum %lu\nwalk_calls %lu\nwork_ns %lld\n", s, calls, t1 - t0);
  return 0;
}
