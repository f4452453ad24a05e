/* ring_idle_main.c - a main thread that writes nothing while the ring turns
 * over: it starts a worker that calls leaf() N times, enough to fill a small
 * ring several times, and only waits for it.  Prints its own wall time
 * (CLOCK_MONOTONIC, from main's start to its return) as "wall_ns T".
 * Usage: ring_idle_main N */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned sink;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

__attribute__((noinline)) static unsigned leaf(unsigned x) { return x * 2654435761u + 1; }

static void *work(void *arg) {
  long n = *(long *)arg;
  unsigned x = 1;
  for (long i = 0; i < n; i++)
    x = leaf(x);
  sink = x;
  return NULL;
}

int main(int argc, char **argv) {
  uint64_t t0 = now_ns();
  if (argc != 2)
    return 2;
  long n = atol(argv[1]);
  pthread_t t;
  if (pthread_create(&t, NULL, work, &n))
    return 1;
  pthread_join(t, NULL);
  printf("wall_ns %llu\n", (unsigned long long)(now_ns() - t0));
  return 0;
}
