/* mcount_race.c - shows that gprof loses calls when threads run at once:
 * glibc's mcount records an arc only if it can take the profiler's one
 * process-wide state from GMON_PROF_ON to GMON_PROF_BUSY (gmon/mcount.c), so
 * a call made while another thread is inside mcount is not counted, whatever
 * function that thread is in.  The first of THREADS threads (argument 1)
 * calls tick() CALLS times (argument 2), the others call tock() as often.
 * Built with -pg, gprof counts every call with one thread, and fewer than
 * the 2 * CALLS made with two, although each function runs on one thread
 * only.  field.sh runs it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;
static long calls;

__attribute__((noinline)) void tick(unsigned long i) {
  sink += i;
  __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void tock(unsigned long i) {
  sink ^= i;
  __asm__ volatile("" ::: "memory");
}

static void *work(void *arg) {
  void (*fn)(unsigned long) = arg ? tock : tick;
  for (long i = 0; i < calls; i++)
    fn((unsigned long)i);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: mcount_race THREADS CALLS\n");
    return 2;
  }
  int n = atoi(argv[1]);
  calls = atol(argv[2]);
  if (n < 1 || n > 64 || calls < 1) {
    fprintf(stderr, "mcount_race: THREADS must be 1 to 64 and CALLS positive\n");
    return 2;
  }
  pthread_t t[64];
  for (int i = 0; i < n; i++)
    if (pthread_create(&t[i], NULL, work, i ? &t[i] : NULL) != 0) {
      fprintf(stderr, "mcount_race: pthread_create failed\n");
      return 1;
    }
  for (int i = 0; i < n; i++)
    pthread_join(t[i], NULL);
  return 0;
}
