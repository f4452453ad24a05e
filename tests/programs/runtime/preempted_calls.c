/* preempted_calls.c - two threads pinned to one CPU, each calling a short
 * function a given number of times, so that the scheduler preempts them
 * again and again inside the calls and inside the probes; each thread
 * measures the CPU time of its loop (CLOCK_THREAD_CPUTIME_ID) and the
 * program prints the calls, the two loops' CPU time and the time from the
 * first loop's start to the last loop's end.
 *   usage: preempted_calls [K]   (thousands of calls per thread, default 1000) */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static long rounds = 1000;
static long loop_cpu_ns[2], loop_calls[2];
static long first_start_ns, last_end_ns;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static long now_ns(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noinline)) void leaf(int n) {
  unsigned long s = 0;
  for (int i = 0; i < n; i++)
    s += (unsigned long)i * (unsigned long)i;
  sink += s;
}

/* Calls leaf rounds thousand times. */
__attribute__((noinline)) long spin(void) {
  long calls = 0;
  for (long r = 0; r < rounds; r++) {
    for (int i = 0; i < 1000; i++)
      leaf(40);
    calls += 1000;
  }
  return calls;
}

static void *worker(void *arg) {
  int who = (int)(long)arg;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0)
    perror("sched_setaffinity");
  long wall = now_ns(CLOCK_MONOTONIC), cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
  pthread_mutex_lock(&lock);
  if (!first_start_ns || wall < first_start_ns)
    first_start_ns = wall;
  pthread_mutex_unlock(&lock);
  loop_calls[who] = spin();
  loop_cpu_ns[who] = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
  wall = now_ns(CLOCK_MONOTONIC);
  pthread_mutex_lock(&lock);
  if (wall > last_end_ns)
    last_end_ns = wall;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    rounds = atol(argv[1]);
  pthread_t t[2];
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  printf("leaf=%ld spin=2 cpu_ns=%ld wall_ns=%ld\n", loop_calls[0] + loop_calls[1],
         loop_cpu_ns[0] + loop_cpu_ns[1], last_end_ns - first_start_ns);
  return 0;
}
