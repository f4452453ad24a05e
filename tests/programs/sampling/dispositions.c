/* dispositions.c - a program that looks at every signal's disposition and
 * resets them all, as gdb's signals-state-child and programs that start
 * from a clean slate do: counts the signals with a handler (neither SIG_DFL
 * nor SIG_IGN; none in a program that installed none), sets every signal
 * to SIG_DFL, computes for 200 ms of CPU time, and counts again.
 * Prints "handlers N", "computed", "handlers N"; exits 0. */
#include <signal.h>
#include <stdio.h>
#include <time.h>

static int handlers(void) {
  int n = 0;
  for (int i = 1; i < NSIG; i++) {
    struct sigaction a;
    if (sigaction(i, NULL, &a) == 0 && a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN)
      n++;
  }
  return n;
}

__attribute__((noinline)) static double step(double x) { return x * 1.0000001 + 1e-9; }

int main(void) {
  printf("handlers %d\n", handlers());
  for (int i = 1; i < NSIG; i++)
    if (i != SIGKILL && i != SIGSTOP)
      signal(i, SIG_DFL);
  struct timespec t0, t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  double x = 1;
  do {
    for (int k = 0; k < 10000; k++)
      x = step(x);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000000L);
  printf("computed%s\n", x > 0 ? "" : " (never)");
  printf("handlers %d\n", handlers());
  return 0;
}
