/* brief_dense.c - a thread that makes 30 000 calls of a tiny leaf() and
 * computes about 2 ms in work(), in a run that main keeps going for 3 s of
 * sleep: the thread's probes are most of its own time, and well under
 * 0.1 % of the run's wall time. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

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
  (void)arg;
  for (unsigned long i = 0; i < 30000; i++)
    leaf(i);
  work();
  return NULL;
}

int main(void) {
  pthread_t t;
  if (pthread_create(&t, NULL, brief, NULL))
    return 1;
  pthread_join(t, NULL);
  sleep(3);
  printf("%lu\n", (unsigned long)sink);
  return 0;
}
