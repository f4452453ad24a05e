/* crowded_calls.c - calls on a crowded CPU: every thread of the process is
 * bound to one CPU, where nine spinning threads (uninstrumented) share it
 * with main, which calls unit() N times (N from the command line, default
 * 200 000; each call about 250 ns of arithmetic) and then stops them.  main is
 * preempted for most of its wall time, so unit()'s Elapsed Inclusive is
 * many times its time on CPU.  Prints the sum of unit()'s results and the
 * CPU time of main's loop by the thread's own clock ("loop_ns NS"). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SPINNERS 9

static atomic_int stop;

__attribute__((noinline)) unsigned long unit(unsigned long x) {
  for (int i = 0; i < 200; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    __asm__ __volatile__("" : "+r"(x));
  }
  return x >> 33;
}

/* Not instrumented: the spinners' threads record nothing. */
__attribute__((no_instrument_function)) static void *spin(void *arg) {
  (void)arg;
  while (!atomic_load_explicit(&stop, memory_order_relaxed))
    ;
  return NULL;
}

static long long cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
  if (sched_setaffinity(0, sizeof one, &one))
    perror("sched_setaffinity"); /* the calls still run, less crowded */
  pthread_t t[SPINNERS];
  int started = 0;
  for (int i = 0; i < SPINNERS; i++)
    started += !pthread_create(&t[i], NULL, spin, NULL);
  long long t0 = cpu_ns();
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++)
    s += unit(i);
  long long t1 = cpu_ns();
  atomic_store(&stop, 1);
  for (int i = 0; i < started; i++)
    pthread_join(t[i], NULL);
  printf("sum %lu\nloop_ns %lld\n", s, t1 - t0);
  return 0;
}
