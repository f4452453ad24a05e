/* sigstorm.c - a tight loop of tiny instrumented calls on the main thread,
 * hit by N signals sent from a second thread; the (instrumented) handler
 * counts itself.  Every handler call must be in the trace: a probe or a
 * buffer flush interrupted by a handler must not lose the handler's events.
 * Usage: sigstorm N.  Prints "handled N". */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static volatile unsigned long sink;
static volatile int done;
static pid_t main_tid;
static long to_send;

void on_usr1(int sig) {
  (void)sig;
  handled++;
}

__attribute__((noinline)) void tiny(unsigned long i) { sink += i; }

static void *sender(void *arg) {
  (void)arg;
  for (long i = 0; i < to_send; i++) {
    long seen = handled;
    syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
    /* one signal in flight at a time: wait until it was handled */
    while (handled == seen)
      ;
  }
  done = 1;
  return NULL;
}

int main(int argc, char **argv) {
  to_send = argc > 1 ? atol(argv[1]) : 5000;
  main_tid = (pid_t)syscall(SYS_gettid);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sa.sa_flags = SA_RESTART;
  if (sigaction(SIGUSR1, &sa, NULL) != 0)
    return 1;
  pthread_t th;
  if (pthread_create(&th, NULL, sender, NULL) != 0)
    return 1;
  while (!done)
    for (unsigned long i = 0; i < 1000; i++)
      tiny(i);
  pthread_join(th, NULL);
  printf("handled %d\n", (int)handled);
  return 0;
}
