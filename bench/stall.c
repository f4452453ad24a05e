/* stall.c - how long an instrumented program's thread is held at once.
 * THREADS threads each call a small non-inlined function ITERS times and
 * read the TSC after every call; the longest gap between two consecutive
 * reads is the longest stall (a probe's flush, a preemption, a page fault),
 * and gaps over 5 us and 50 us are counted.  Run uninstrumented it gives the
 * machine's own noise; with 2 threads on 2 CPUs it keeps both cores busy.
 *   usage: stall THREADS ITERS
 * Prints work_ns (the slowest thread), calls, max_stall_ns, stalls_5us,
 * stalls_50us. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static unsigned long iters;
static double ticks_per_ns;

struct result {
  double work_ns;
  unsigned long long max_ticks, over5, over50;
};

__attribute__((noinline)) unsigned leaf(unsigned x) { return x * 2654435761u + 1; }

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *run(void *arg) {
  struct result *r = arg;
  unsigned long long lim5 = (unsigned long long)(5000 * ticks_per_ns);
  unsigned long long lim50 = (unsigned long long)(50000 * ticks_per_ns);
  volatile unsigned acc = 1;
  double t0 = now_ns();
  unsigned long long prev = __rdtsc();
  for (unsigned long i = 0; i < iters; i++) {
    acc = leaf(acc);
    unsigned long long now = __rdtsc(), d = now - prev;
    prev = now;
    if (d > r->max_ticks)
      r->max_ticks = d;
    r->over5 += d > lim5;
    r->over50 += d > lim50;
  }
  r->work_ns = now_ns() - t0;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: stall THREADS ITERS\n");
    return 2;
  }
  int threads = atoi(argv[1]);
  iters = strtoul(argv[2], NULL, 10);
  if (threads < 1 || threads > 64 || !iters) {
    fprintf(stderr, "stall: THREADS is 1..64, ITERS > 0\n");
    return 2;
  }
  double c0 = now_ns();
  unsigned long long k0 = __rdtsc();
  while (now_ns() - c0 < 20e6)
    ;
  ticks_per_ns = (double)(__rdtsc() - k0) / (now_ns() - c0);
  pthread_t th[64];
  struct result res[64] = {{0}};
  for (int i = 1; i < threads; i++)
    pthread_create(&th[i], NULL, run, &res[i]);
  run(&res[0]);
  for (int i = 1; i < threads; i++)
    pthread_join(th[i], NULL);
  struct result all = {0};
  for (int i = 0; i < threads; i++) {
    if (res[i].work_ns > all.work_ns)
      all.work_ns = res[i].work_ns;
    if (res[i].max_ticks > all.max_ticks)
      all.max_ticks = res[i].max_ticks;
    all.over5 += res[i].over5;
    all.over50 += res[i].over50;
  }
  printf("work_ns=%.0f calls=%lu max_stall_ns=%.0f stalls_5us=%llu stalls_50us=%llu\n", all.work_ns,
         (unsigned long)threads * iters, (double)all.max_ticks / ticks_per_ns, all.over5,
         all.over50);
  return 0;
}
