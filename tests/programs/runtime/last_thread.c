/* last_thread.c - processes whose last thread is not main.
 *   last_thread main-exit N: main starts a worker and calls pthread_exit;
 *     the worker calls work() N times after 50 ms and returns, which ends
 *     the process (status 0).
 *   last_thread fork-worker N: a worker thread forks; the child calls
 *     work() N times and returns from the thread's function, its only
 *     thread, which ends it; the parent waits for it 10 s at most and
 *     prints how it ended.
 *   last_thread sigterm N | sigterm-default N: main (with a SIGTERM handler
 *     of its own, or none) starts a worker and calls pthread_exit; the
 *     worker says "ready" and waits 10 s at most for the handler to run,
 *     then calls work() N times and returns.  The caller sends SIGTERM: the
 *     handler runs and the process ends with status 0, or the default
 *     action kills it.
 * Every run prints "work W" before it ends (the calls it made). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long work_calls, n;
static volatile sig_atomic_t got_term;

__attribute__((noinline)) void work(void) { work_calls++; }

static void nap_ms(long ms) {
  struct timespec ts = {ms / 1000, ms % 1000 * 1000000};
  nanosleep(&ts, NULL);
}

static void on_term(int s) {
  (void)s;
  got_term = 1;
}

static void *late_worker(void *arg) {
  nap_ms(50);
  for (long i = 0; i < n; i++)
    work();
  printf("work %ld\n", work_calls);
  fflush(stdout);
  return arg;
}

static void *forking_worker(void *arg) {
  pid_t pid = fork();
  if (pid == 0) {
    for (long i = 0; i < n; i++)
      work();
    printf("child work %ld\n", work_calls);
    fflush(stdout);
    return arg; /* the child's only thread ends: so does the child */
  }
  int st = 0;
  long waited = 0;
  while (waitpid(pid, &st, WNOHANG) == 0 && waited < 10000) {
    nap_ms(10);
    waited += 10;
  }
  if (waited >= 10000) {
    printf("child still running after 10 s\n");
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
  } else {
    printf("child ended: %s %d\n", WIFEXITED(st) ? "status" : "signal",
           WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  }
  return arg;
}

static void *waiting_worker(void *arg) {
  nap_ms(50);
  printf("ready\n");
  fflush(stdout);
  for (int i = 0; i < 1000 && !got_term; i++)
    nap_ms(10);
  for (long i = 0; i < n; i++)
    work();
  printf("handler %s, work %ld\n", got_term ? "ran" : "did not run", work_calls);
  fflush(stdout);
  return arg;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  n = atol(argv[2]);
  pthread_t th;
  if (!strcmp(argv[1], "fork-worker")) {
    pthread_create(&th, NULL, forking_worker, NULL);
    pthread_join(th, NULL);
    return 0;
  }
  if (!strcmp(argv[1], "sigterm"))
    signal(SIGTERM, on_term);
  pthread_create(&th, NULL, strncmp(argv[1], "sigterm", 7) ? late_worker : waiting_worker, NULL);
  work();
  pthread_exit(NULL);
}
