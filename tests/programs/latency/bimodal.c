/* bimodal.c - a request handler whose calls have a known bimodal
 * distribution: 1000 calls of handle(); every 50th (2 %) also goes through
 * slow_part(), which sleeps 2 ms (or, given a number N, computes N more
 * steps in calls of 20 000); the others only compute 20 000 steps (about 30 us).  The program
 * times every call itself (CLOCK_MONOTONIC around it) and prints its own p50,
 * p90, p99 and maximum in ns, the rank rule being the ceil(q * n)-th smallest,
 * then on a second line the bands of p50 and p90: the values of the
 * quantiles 2 % of the calls below and above each.  A call
 * preempted between the program's clock read and its probe reads longer
 * here than in the trace, which can move calls across a quantile's rank on
 * a busy machine: the band is how far that can move it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CALLS 1000

static volatile uint64_t sink;
static int slow_steps; /* 0: slow_part sleeps */

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

__attribute__((noinline)) static void slow_part(void) {
  struct timespec t = {0, 2000000};
  if (!slow_steps)
    nanosleep(&t, NULL);
  for (int k = 0; k < slow_steps / 20000; k++) /* short calls: Application time keeps them */
    compute(20000);
}

__attribute__((noinline)) static void handle(int i) {
  compute(20000);
  if (i % 50 == 49)
    slow_part();
}

static int by_value(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static uint64_t quantile(const uint64_t *sorted, double q) {
  size_t rank = (size_t)(q * CALLS);
  if ((double)rank < q * CALLS || rank == 0)
    rank++;
  return sorted[rank - 1];
}

int main(int argc, char **argv) {
  static uint64_t took[CALLS];
  slow_steps = argc > 1 ? atoi(argv[1]) : 0;
  for (int i = 0; i < CALLS; i++) {
    uint64_t t0 = now_ns();
    handle(i);
    took[i] = now_ns() - t0;
  }
  qsort(took, CALLS, sizeof *took, by_value);
  printf("%llu %llu %llu %llu\n", (unsigned long long)quantile(took, 0.5),
         (unsigned long long)quantile(took, 0.9), (unsigned long long)quantile(took, 0.99),
         (unsigned long long)took[CALLS - 1]);
  printf("band %llu %llu %llu %llu\n", (unsigned long long)quantile(took, 0.48),
         (unsigned long long)quantile(took, 0.52), (unsigned long long)quantile(took, 0.88),
         (unsigned long long)quantile(took, 0.92));
  return 0;
}
