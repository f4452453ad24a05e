/* slow_requests.c - a server-like program for snapshots of slow calls: the
 * main thread handles REQUESTS requests (argument 1, default 20000), each a
 * call of handle() that computes about 30 us; every EVERY-th (argument 2,
 * default 2000) also calls slow_part(), which sleeps 6 ms plus 0.5 ms more
 * for each slow call before it, so that the slow calls' durations differ.
 * A second thread calls work() (a few microseconds) from before the first
 * request until 20 ms after the last.  The program times every handle() call itself, twice
 * (CLOCK_MONOTONIC): around the call (OUTSIDE) and inside handle() from its
 * first statement to its last (INSIDE), so that the call's time as its
 * probes see it lies between the two even when the thread waits for a CPU
 * between a probe and a clock read; it prints, in order, "slow I OUTSIDE
 * INSIDE" (ns) for each call over 4 ms outside (a slow call, or a fast one
 * that waited that long for a CPU), then "work CALLS". */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;
static volatile int done, working;
static uint64_t work_calls;
static uint64_t inside_ns; /* the last handle() call's own measure */

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

__attribute__((noinline)) static void compute(int n) {
  uint64_t x = 0;
  for (int i = 0; i < n; i++)
    x = x * 6364136223846793005ull + (uint64_t)i;
  sink = x;
}

__attribute__((noinline)) static void slow_part(int k) {
  struct timespec t = {0, 6000000 + 500000L * k};
  nanosleep(&t, NULL);
}

__attribute__((noinline)) static void handle(int i, int every) {
  uint64_t t0 = now_ns();
  compute(20000);
  if (i % every == every - 1)
    slow_part(i / every);
  inside_ns = now_ns() - t0;
}

__attribute__((noinline)) static void work(void) { compute(2000); }

static void *worker(void *arg) {
  (void)arg;
  working = 1;
  while (!done) {
    work();
    work_calls++;
  }
  return NULL;
}

int main(int argc, char **argv) {
  int requests = argc > 1 ? atoi(argv[1]) : 20000;
  int every = argc > 2 ? atoi(argv[2]) : 2000;
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) != 0)
    return 1;
  while (!working) /* the worker is in worker() before the first request */
    sched_yield();
  for (int i = 0; i < requests; i++) {
    uint64_t t0 = now_ns();
    handle(i, every);
    uint64_t took = now_ns() - t0;
    if (took > 4000000)
      printf("slow %d %llu %llu\n", i, (unsigned long long)took, (unsigned long long)inside_ns);
  }
  struct timespec rest = {0, 20000000}; /* the worker outlives the last request's window */
  nanosleep(&rest, NULL);
  done = 1;
  pthread_join(t, NULL);
  printf("work %llu\n", (unsigned long long)work_calls);
  return 0;
}
