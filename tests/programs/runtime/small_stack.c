/* small_stack.c - threads started with the smallest stack libc allows
 * (PTHREAD_STACK_MIN, 16 KB, the thread's TLS carved out of it), as
 * programs with many threads and little memory start them.
 *   small_stack T N: T such threads one after another, each calling
 *   sched_yield() (a library function the program calls nowhere else) and
 *   work() N times and returning; main joins each and prints "work W" (the calls
 *   made) and exits 0.  With N past a buffer's 16 384 events the thread's
 *   first full buffer is written while it runs; every thread's last events
 *   are written as it ends. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static long work_calls, n;

__attribute__((noinline)) void work(void) { work_calls++; }

static void *worker(void *arg) {
  (void)arg;
  sched_yield();
  for (long i = 0; i < n; i++)
    work();
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: small_stack THREADS CALLS\n");
    return 2;
  }
  int threads = atoi(argv[1]);
  n = atol(argv[2]);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
  for (int i = 0; i < threads; i++) {
    pthread_t t;
    if (pthread_create(&t, &attr, worker, NULL) != 0) {
      perror("pthread_create");
      return 1;
    }
    pthread_join(t, NULL);
  }
  printf("work %ld\n", work_calls);
  return 0;
}
