/* callheavy.c - the call-heavy workload every instrumentation method is
 * measured on: a recursive function (fib-like, written so that no compiler
 * turns a recursive call into a loop) plus a loop calling two small
 * non-inlined functions and two inlinable ones.  Instrumentation that works
 * after inlining (the inclprof plugin, -pg, XRay) sees only the non-inlined
 * calls; -finstrument-functions also hooks the inlined ones.
 *   usage: callheavy DEPTH LOOPS
 * Prints the time of the workload alone (CLOCK_MONOTONIC) and the number of
 * non-inlined calls it made. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) unsigned long rec(unsigned n) {
  if (n < 2)
    return n;
  unsigned long a = rec(n - 1);
  unsigned long b = rec(n - 2);
  return (a ^ (b * 3)) + 1;
}

__attribute__((noinline)) unsigned step_mul(unsigned x) { return x * 2654435761u + 1; }

__attribute__((noinline)) unsigned step_rot(unsigned x, unsigned y) {
  return ((x ^ y) >> 1) | (x << 31);
}

static inline unsigned tiny_add(unsigned x) { return x + 7; }

static inline unsigned tiny_mix(unsigned x) { return x ^ (x >> 3); }

/* Calls of rec(depth): c(n) = 1 + c(n-1) + c(n-2), c(0) = c(1) = 1. */
static unsigned long rec_calls(unsigned depth) {
  unsigned long prev = 1, cur = 1;
  for (unsigned i = 2; i <= depth; i++) {
    unsigned long next = 1 + cur + prev;
    prev = cur;
    cur = next;
  }
  return cur;
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: callheavy DEPTH LOOPS\n");
    return 2;
  }
  unsigned depth = (unsigned)strtoul(argv[1], NULL, 10);
  unsigned loops = (unsigned)strtoul(argv[2], NULL, 10);
  double t0 = now_ns();
  unsigned long r = rec(depth);
  unsigned acc = 1;
  for (unsigned i = 0; i < loops; i++) {
    acc = step_mul(acc);
    acc = step_rot(acc, i);
    acc = tiny_add(acc);
    acc = tiny_mix(acc);
  }
  double t1 = now_ns();
  printf("work_ns=%.0f calls=%lu inlinable_calls=%lu checksum=%lx\n", t1 - t0,
         rec_calls(depth) + 2ul * loops, 2ul * loops, r ^ acc);
  return 0;
}
