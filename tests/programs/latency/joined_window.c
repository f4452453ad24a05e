/* joined_window.c - slow calls inside which some threads sleep throughout
 * and one waits for a lock.  main starts a sleeper thread, asleep in read()
 * on a pipe until the end, a holder thread and a worker, and waits for the
 * worker in pthread_join.  The worker makes 240 calls of handle(), each
 * computing about 100 us; in every 50th (the 50th to the 200th) the holder
 * takes big_lock and computes 8 ms holding it while handle() waits for it.
 * Prints the sleeper's tid and the number of calls that waited over 1 ms
 * for big_lock by its own clock (on a busy machine the holder may be done
 * before handle() asks for the lock). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static int fds[2];
pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int asked, held, done;
static long sleeper_tid;
static int waited; /* calls that waited over 1 ms for big_lock */

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

__attribute__((noinline)) void compute(long ns) {
  long until = now_ns() + ns;
  while (now_ns() < until)
    for (int j = 0; j < 100; j++)
      sink += (unsigned long)j;
}

__attribute__((noinline)) void hold(void) {
  pthread_mutex_lock(&big_lock);
  pthread_mutex_lock(&m);
  held = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&m);
  compute(8000000);
  pthread_mutex_unlock(&big_lock);
}

__attribute__((noinline)) void *holder(void *arg) {
  pthread_mutex_lock(&m);
  for (;;) {
    while (!asked && !done)
      pthread_cond_wait(&cv, &m);
    if (done)
      break;
    asked = 0;
    pthread_mutex_unlock(&m);
    hold();
    pthread_mutex_lock(&m);
  }
  pthread_mutex_unlock(&m);
  return arg;
}

__attribute__((noinline)) void handle(int i) {
  compute(100000);
  if (i % 50 != 49)
    return;
  pthread_mutex_lock(&m);
  held = 0;
  asked = 1;
  pthread_cond_broadcast(&cv);
  while (!held)
    pthread_cond_wait(&cv, &m);
  pthread_mutex_unlock(&m);
  long t0 = now_ns();
  pthread_mutex_lock(&big_lock);
  waited += now_ns() - t0 > 1000000;
  pthread_mutex_unlock(&big_lock);
}

__attribute__((noinline)) void *worker(void *arg) {
  for (int i = 0; i < 240; i++)
    handle(i);
  return arg;
}

__attribute__((noinline)) void *sleeper(void *arg) {
  char c;
  pthread_mutex_lock(&m);
  sleeper_tid = syscall(SYS_gettid);
  pthread_mutex_unlock(&m);
  return read(fds[0], &c, 1) == 1 ? NULL : arg;
}

int main(void) {
  pthread_t w, s, h;
  if (pipe(fds) || pthread_create(&s, NULL, sleeper, NULL) ||
      pthread_create(&h, NULL, holder, NULL))
    return 1;
  usleep(20000); /* the sleeper and the holder are asleep before the first call */
  if (pthread_create(&w, NULL, worker, NULL))
    return 1;
  pthread_join(w, NULL);
  pthread_mutex_lock(&m);
  done = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&m);
  if (write(fds[1], "x", 1) != 1)
    return 1;
  pthread_join(s, NULL);
  pthread_join(h, NULL);
  printf("sleeper %ld\nwaited for big_lock: %d\n", sleeper_tid, waited);
  return 0;
}
