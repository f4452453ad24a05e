/* exit_threads.c - ends the process while other instrumented threads are
 * alive, to prove the final flush never holds the exit hostage.
 * Usage: exit_threads HOW N STATE
 *   HOW:   return | exit | _exit | exec | thread-exit | signal-exit
 *          (thread-exit: a worker calls exit while main waits in join;
 *           signal-exit: main's SIGUSR1 handler calls exit)
 *   N:     other threads
 *   STATE: what the other threads are doing when the process ends:
 *          cond  - blocked on a condition variable (holding its mutex's turn)
 *          read  - blocked in read() on a pipe nobody writes
 *          spin  - calling an instrumented function in a loop (their
 *                  buffers fill and flush all the time)
 *          first - just created: the process ends during their first probes
 *          mutex - one worker holds a mutex main then tries to take
 * Exit status: return 3, exit 3, _exit 4, exec 5, thread-exit 6, signal-exit 7. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static int quiet_pipe[2];
static atomic_int ready;
static volatile unsigned long sink;
static const char *state;

__attribute__((noinline)) static unsigned long leaf(unsigned long i) { return i * 7 + 1; }

__attribute__((noinline)) static void block_on_cond(void) {
  pthread_mutex_lock(&cond_lock);
  atomic_fetch_add(&ready, 1);
  for (;;)
    pthread_cond_wait(&never, &cond_lock);
}

__attribute__((noinline)) static void block_in_read(void) {
  char c;
  atomic_fetch_add(&ready, 1);
  while (read(quiet_pipe[0], &c, 1) != 0)
    ;
}

__attribute__((noinline)) static void spin(void) {
  atomic_fetch_add(&ready, 1);
  for (unsigned long i = 0;; i++)
    sink += leaf(i);
}

__attribute__((noinline)) static void hold_mutex(long index) {
  if (index == 0)
    pthread_mutex_lock(&held);
  block_in_read();
}

static void *worker(void *arg) {
  long index = (long)arg;
  if (!strcmp(state, "cond"))
    block_on_cond();
  else if (!strcmp(state, "read"))
    block_in_read();
  else if (!strcmp(state, "spin"))
    spin();
  else if (!strcmp(state, "mutex"))
    hold_mutex(index);
  else
    sink += leaf((unsigned long)index); /* "first" */
  return NULL;
}

static void *exiting_worker(void *arg) {
  (void)arg;
  exit(6);
}

static void on_usr1(int sig) {
  (void)sig;
  exit(7);
}

__attribute__((noinline)) static int end_process(const char *how) {
  if (!strcmp(how, "exit"))
    exit(3);
  if (!strcmp(how, "_exit"))
    _exit(4);
  if (!strcmp(how, "exec")) {
    execl("/bin/sh", "sh", "-c", "exit 5", (char *)NULL);
    return 90;
  }
  if (!strcmp(how, "thread-exit")) {
    pthread_t t;
    pthread_create(&t, NULL, exiting_worker, NULL);
    pthread_join(t, NULL);
    return 91;
  }
  if (!strcmp(how, "signal-exit")) {
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    return 92;
  }
  return 3; /* return */
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: exit_threads HOW N STATE\n");
    return 2;
  }
  int n = atoi(argv[2]);
  state = argv[3];
  if (pipe(quiet_pipe) != 0)
    return 2;
  for (long i = 0; i < n; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, worker, (void *)i) != 0)
      return 2;
  }
  if (strcmp(state, "first") != 0)
    while (atomic_load(&ready) < n)
      usleep(1000);
  if (!strcmp(state, "mutex")) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 50000000;
    if (until.tv_nsec >= 1000000000) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000;
    }
    if (pthread_mutex_timedlock(&held, &until) != ETIMEDOUT)
      return 2;
  }
  if (!strcmp(state, "spin"))
    usleep(20000); /* let the spinning threads fill and flush buffers */
  return end_process(argv[1]);
}
