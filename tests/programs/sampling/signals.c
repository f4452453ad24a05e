/* signals.c - a program with timers and signal handlers of its own:
 * SIGALRM (installed with signal(), ITIMER_REAL) and SIGPROF (sigaction
 * with SA_SIGINFO, ITIMER_PROF), both every 10 ms, while it computes and
 * sleeps (nanosleep resumed with the time left when a signal cuts it).
 * Usage: signals ROUNDS.  Prints "result N" (independent of timing), then
 * "prof N expected E" (E = process CPU time / 10 ms) and "alrm N expected E
 * queued Q" (E = elapsed time / 10 ms; Q = the time the main thread waited for
 * a CPU, from /proc/self/schedstat, / 10 ms: expirations of ITIMER_REAL while
 * it waits merge into one pending SIGALRM, so up to Q of E are not seen on a
 * busy machine). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "spin.h"

static volatile sig_atomic_t n_prof, n_alrm;

void on_alrm(int sig) {
  (void)sig;
  n_alrm++;
}

void on_prof(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  if (sig == SIGPROF && si->si_signo == SIGPROF)
    n_prof++;
}

__attribute__((noinline)) unsigned long compute(unsigned long x) { return spin(x, 20000); }

static void nap_ms(long ms) {
  struct timespec left = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&left, &left) != 0 && errno == EINTR)
    ;
}

/* Milliseconds the main thread has waited on a run queue (schedstat's second
 * field); 0 where the kernel keeps no scheduler statistics. */
static double queued_ms(void) {
  unsigned long long run = 0, wait = 0;
  FILE *f = fopen("/proc/self/schedstat", "r");
  if (f) {
    if (fscanf(f, "%llu %llu", &run, &wait) != 2)
      wait = 0;
    fclose(f);
  }
  return (double)wait / 1e6;
}

static double now_ms(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 1000;
  if (signal(SIGALRM, on_alrm) == SIG_ERR)
    return 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_prof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGPROF, &sa, NULL) != 0)
    return 1;
  struct itimerval every10ms = {{0, 10000}, {0, 10000}}, off = {{0, 0}, {0, 0}};
  double wall0 = now_ms(CLOCK_MONOTONIC), cpu0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
  double queued0 = queued_ms();
  if (setitimer(ITIMER_PROF, &every10ms, NULL) != 0 || setitimer(ITIMER_REAL, &every10ms, NULL) != 0)
    return 1;
  unsigned long x = 1;
  for (long i = 0; i < rounds; i++) {
    x = compute(x);
    if (i % (rounds / 4 + 1) == 0)
      nap_ms(50);
  }
  setitimer(ITIMER_PROF, &off, NULL);
  setitimer(ITIMER_REAL, &off, NULL);
  double wall = now_ms(CLOCK_MONOTONIC) - wall0, cpu = now_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  double queued = queued_ms() - queued0;
  printf("result %lu\nprof %d expected %.0f\nalrm %d expected %.0f queued %.0f\n", x, (int)n_prof,
         cpu / 10, (int)n_alrm, wall / 10, queued / 10);
  return 0;
}
