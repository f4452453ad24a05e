/* fork_hot.c - forks at once; the child calls leaf() N times (N from the
 * command line, default 2 000 000) right after the fork and exits, the
 * parent waits for it: leaf is the first function the child enters, a
 * callee of main, whose entry the child's trace does not hold.
 * tests/integration/suggest_threads.sh */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void leaf(unsigned long i) { sink += i; }

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000000;
  pid_t p = fork();
  if (p < 0)
    return 1;
  if (p == 0) {
    for (unsigned long i = 0; i < n; i++)
      leaf(i);
    printf("%lu\n", (unsigned long)sink);
    fflush(stdout);
    _exit(0);
  }
  int st;
  return waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
