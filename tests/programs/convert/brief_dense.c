/* brief_dense.c - a thread that makes N calls of a tiny leaf() (N from the
 * command line, default 30 000) and computes about 2 ms in work(), in a run
 * that main keeps going for 3 s of sleep, beside S more threads that sleep
 * those 3 s too (S from the command line, default 0): the thread's probes
 * are most of its own time; by default well under 0.1 % of the run's wall
 * time, with N = 300 000 and S = 6 over it, yet under 0.1 % of the session's
 * thread-summed Elapsed time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static unsigned long calls = 30000;

__attribute__((noinline)) void leaf(unsigned long i) { sink += i; }

__attribute__((noinline)) void work(void) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do {
    for (int i = 0; i < 1000; i++)
      sink += (unsigned long)i * 7;
    clock_gettime(CLOCK_MONOTONIC, &b);
  } while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 2000000);
}

__attribute__((noinline)) void *brief(void *arg) {
  for (unsigned long i = 0; i < calls; i++)
    leaf(i);
  work();
  return arg;
}

__attribute__((noinline)) void *sleeper(void *arg) {
  sleep(3);
  return arg;
}

int main(int argc, char **argv) {
  if (argc > 1)
    calls = strtoul(argv[1], NULL, 10);
  int n = argc > 2 ? atoi(argv[2]) : 0;
  pthread_t t, s[16];
  n = n < 0 ? 0 : n > 16 ? 16 : n;
  for (int i = 0; i < n; i++)
    if (pthread_create(&s[i], NULL, sleeper, NULL))
      return 1;
  if (pthread_create(&t, NULL, brief, NULL))
    return 1;
  pthread_join(t, NULL);
  sleep(3);
  for (int i = 0; i < n; i++)
    pthread_join(s[i], NULL);
  printf("%lu\n", (unsigned long)sink);
  return 0;
}
