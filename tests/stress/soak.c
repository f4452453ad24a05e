/* soak.c - the soak of `make stress`: WORKERS threads make a steady stream of
 * instrumented calls for SECONDS while a control thread pauses and resumes
 * recording (inclprof_stop/inclprof_start) every 50 ms and takes SIGUSR1
 * from a sender thread at 1 kHz, whose handler calls an instrumented
 * function.  The program counts exactly the calls made while recording was
 * on: workers make their calls in bursts under a read lock and the control
 * thread toggles under the write lock, so no call straddles a toggle; the
 * signal is blocked everywhere but in the control thread, and there around
 * the toggles.  Writes its pid to DIR/pid at start and, at the end,
 * "function calls_while_on" lines to DIR/counts.
 *   usage: soak SECONDS WORKERS DIR */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "inclprof.h"

#define NO_PROBES __attribute__((no_instrument_function))
#define BURST 50 /* calls of soak_work per burst; one burst per ms per worker */

static pthread_rwlock_t toggle = PTHREAD_RWLOCK_INITIALIZER;
static volatile int recording = 1; /* written under the write lock */
static volatile int stopping;
static unsigned long work_on, work_off, tick_on, signal_on, signal_off;
static volatile sig_atomic_t ctl_on = 1; /* the control thread's view, for the handler */
static volatile unsigned sink;

__attribute__((noinline)) static unsigned soak_leaf(unsigned x) {
  __asm__ volatile("" : "+r"(x));
  return x * 2654435761u + 1;
}

__attribute__((noinline)) static unsigned soak_work(unsigned x) { return soak_leaf(x) ^ x; }

__attribute__((noinline)) static void soak_tick(void) { sink = soak_leaf(sink); }

__attribute__((noinline)) static void soak_on_signal(void) { sink = sink + 1; }

NO_PROBES static void on_usr1(int sig) {
  (void)sig;
  soak_on_signal();
  /* only the control thread runs this handler, never during a toggle */
  if (ctl_on)
    signal_on++;
  else
    signal_off++;
}

NO_PROBES static void sleep_ns(long ns) {
  struct timespec ts = {0, ns};
  while (nanosleep(&ts, &ts))
    ;
}

NO_PROBES static void *worker(void *arg) {
  unsigned x = (unsigned)(unsigned long)arg;
  unsigned long on = 0, off = 0;
  while (!stopping) {
    pthread_rwlock_rdlock(&toggle);
    int rec = recording;
    for (int i = 0; i < BURST; i++)
      x = soak_work(x);
    pthread_rwlock_unlock(&toggle);
    if (rec)
      on += BURST;
    else
      off += BURST;
    sleep_ns(1000000);
  }
  __atomic_fetch_add(&work_on, on, __ATOMIC_RELAXED);
  __atomic_fetch_add(&work_off, off, __ATOMIC_RELAXED);
  sink = x;
  return NULL;
}

static pthread_t control_thread;

NO_PROBES static void *sender(void *arg) {
  (void)arg;
  while (!stopping) {
    pthread_kill(control_thread, SIGUSR1);
    sleep_ns(1000000);
  }
  return NULL;
}

NO_PROBES static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct control_arg {
  double seconds;
  unsigned long toggles;
} control_arg;

NO_PROBES static void *control(void *arg) {
  control_arg *c = arg;
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  soak_tick(); /* the thread's first probe sets it up before any signal */
  tick_on++;
  pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
  double end = now() + c->seconds;
  while (now() < end) {
    for (int i = 0; i < 5; i++) { /* 50 ms in one state, a tick every 10 ms */
      sleep_ns(10000000);
      soak_tick();
      if (ctl_on)
        tick_on++;
    }
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);
    pthread_rwlock_wrlock(&toggle);
    if (recording)
      inclprof_stop();
    else
      inclprof_start();
    recording = !recording;
    ctl_on = recording;
    pthread_rwlock_unlock(&toggle);
    pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
    c->toggles++;
  }
  pthread_sigmask(SIG_BLOCK, &usr1, NULL);
  if (!recording) {
    inclprof_start();
    recording = ctl_on = 1;
  }
  stopping = 1;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: soak SECONDS WORKERS DIR\n");
    return 2;
  }
  control_arg c = {atof(argv[1]), 0};
  int workers = atoi(argv[2]);
  char path[4096];
  snprintf(path, sizeof path, "%s/pid", argv[3]);
  FILE *f = fopen(path, "w");
  if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
    perror(path);
    return 1;
  }
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, NULL); /* inherited by every thread */
  struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART};
  sigaction(SIGUSR1, &sa, NULL);
  pthread_t *t = calloc((size_t)workers, sizeof *t), snd;
  if (!t)
    return 1;
  for (int i = 0; i < workers; i++)
    pthread_create(&t[i], NULL, worker, (void *)(unsigned long)i);
  pthread_create(&control_thread, NULL, control, &c);
  pthread_create(&snd, NULL, sender, NULL);
  pthread_join(control_thread, NULL);
  pthread_join(snd, NULL);
  for (int i = 0; i < workers; i++)
    pthread_join(t[i], NULL);
  free(t);
  snprintf(path, sizeof path, "%s/counts", argv[3]);
  f = fopen(path, "w");
  if (!f) {
    perror(path);
    return 1;
  }
  /* soak_work calls soak_leaf once; soak_tick calls it once too */
  fprintf(f, "soak_work %lu\nsoak_leaf %lu\nsoak_tick %lu\nsoak_on_signal %lu\n", work_on,
          work_on + tick_on, tick_on, signal_on);
  fprintf(f, "# off: soak_work %lu soak_on_signal %lu; toggles %lu\n", work_off, signal_off,
          c.toggles);
  return fclose(f) ? 1 : 0;
}
