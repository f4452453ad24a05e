/* hot_paths.c - a call tree whose hottest path is known by construction,
 * and differs by the value: by Elapsed time main -> wait_for_input ->
 * usleep (800 ms asleep), by Application time main -> run_batch ->
 * transform -> kernel_loop (4 x 500 short calls, about 8 M iterations of
 * arithmetic: ten times what warm_up's path computes, and far more than
 * the sleeper's few microseconds).  transform has two callers (run_batch and
 * warm_up) and calls kernel_loop, qsort (a libc function that calls the
 * instrumented compare_ints back) and memset.  The program prints the calls
 * it made: "calls NAME N". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOOPS 500
#define SPIN  4000UL

static volatile unsigned long sink;
static unsigned long compares, kernels;

__attribute__((noinline)) static int compare_ints(const void *a, const void *b) {
  compares++;
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

__attribute__((noinline)) static unsigned long kernel_loop(unsigned long n) {
  unsigned long s = 0;
  kernels++;
  for (unsigned long i = 0; i < n; i++)
    s += i ^ (s >> 3);
  return s;
}

__attribute__((noinline)) static void transform(int loops, int *buf, size_t len) {
  for (size_t i = 0; i < len; i++)
    buf[i] = (int)((i * 7919u) % 1000u);
  qsort(buf, len, sizeof *buf, compare_ints);
  for (int i = 0; i < loops; i++)
    sink += kernel_loop(SPIN);
  memset(buf, 0, len * sizeof *buf);
}

__attribute__((noinline)) static void warm_up(int *buf, size_t len) { transform(LOOPS / 5, buf, len); }

__attribute__((noinline)) static void run_batch(int *buf, size_t len) {
  for (int i = 0; i < 4; i++)
    transform(LOOPS, buf, len);
}

__attribute__((noinline)) static void wait_for_input(void) { usleep(800000); }

int main(void) {
  static int buf[256];
  warm_up(buf, 256);
  wait_for_input();
  run_batch(buf, 256);
  printf("calls transform 5\ncalls kernel_loop %lu\ncalls compare_ints %lu\n", kernels, compares);
  return 0;
}
