/* alive_at_exit.c - a server's background threads, alive when the process
 * exits: each does a little instrumented work, names itself (as redis names
 * its bio_* threads, after its first probe), then waits on a condition that
 * never comes.  main waits until all of them wait, then ends the process N
 * ms later (argv[2]: exit, _exit, or SIGTERM, default exit).  The program prints
 * its own truth: per thread its name and how long it lived, from its first
 * instrumented call to the exit ("thread NAME MS"). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define THREADS 3
static const char *const names[THREADS] = {"bio_close_file", "bio_aof", "bio_lazy_free"};
static double started_ms[THREADS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static pthread_cond_t all_ready = PTHREAD_COND_INITIALIZER;
static int ready;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static unsigned long work(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++)
    s += i ^ (s >> 3);
  return s;
}

static void *background(void *arg) {
  long i = (long)arg;
  started_ms[i] = now_ms();
  work(100000);
  pthread_setname_np(pthread_self(), names[i]);
  pthread_mutex_lock(&mu);
  if (++ready == THREADS)
    pthread_cond_signal(&all_ready);
  for (;;)
    pthread_cond_wait(&never, &mu);
  return NULL;
}

int main(int argc, char **argv) {
  long ms = argc > 1 ? atol(argv[1]) : 300;
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, background, (void *)i);
  pthread_mutex_lock(&mu); /* however long a busy machine takes to start them */
  while (ready < THREADS)
    pthread_cond_wait(&all_ready, &mu);
  pthread_mutex_unlock(&mu);
  struct timespec d = {ms / 1000, ms % 1000 * 1000000};
  nanosleep(&d, NULL);
  double end = now_ms();
  for (int i = 0; i < THREADS; i++)
    printf("thread %s %.3f\n", names[i], end - started_ms[i]);
  fflush(stdout);
  const char *how = argc > 2 ? argv[2] : "exit";
  if (!strcmp(how, "_exit"))
    _exit(0);
  if (!strcmp(how, "SIGTERM"))
    raise(SIGTERM);
  exit(0);
}
