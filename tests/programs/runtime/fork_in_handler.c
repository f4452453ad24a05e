/* fork_in_handler.c - children forked inside a signal handler, as a server
 * starts its workers from its SIGUSR1 or SIGCHLD handler.
 *   fork_in_handler stay N: the child never returns from the handler: it
 *     calls work() N times there and leaves with exit(0).
 *   fork_in_handler return N: the child returns from the handler and calls
 *     work() N times from main, then returns from main.
 * The parent waits for the child in the handler, then calls work() 10
 * times.  Each process prints its own count of work() calls. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long work_calls, n;
static int stay, in_child;

__attribute__((noinline)) void work(void) { work_calls++; }

static void on_usr1(int s) {
  (void)s;
  pid_t pid = fork();
  if (pid == 0) {
    in_child = 1;
    if (!stay)
      return;
    for (long i = 0; i < n; i++)
      work();
    printf("child work %ld\n", work_calls);
    exit(0);
  }
  int st;
  waitpid(pid, &st, 0);
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  stay = !strcmp(argv[1], "stay");
  n = atol(argv[2]);
  signal(SIGUSR1, on_usr1);
  raise(SIGUSR1);
  if (in_child) {
    for (long i = 0; i < n; i++)
      work();
    printf("child work %ld\n", work_calls);
    return 0;
  }
  for (int i = 0; i < 10; i++)
    work();
  printf("parent work %ld\n", work_calls);
  return 0;
}
