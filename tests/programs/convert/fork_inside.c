/* fork_inside.c - forks from inside two instrumented frames (main, spawn):
 * the child runs child_work (1000 calls of leaf) and returns through
 * spawn and main, whose entries its trace does not hold; the parent waits,
 * then calls leaf 1000 times.  tests/integration/convert_fork_exits.sh */
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;
__attribute__((noinline)) void leaf(void) { sink++; }
__attribute__((noinline)) void child_work(void) {
  for (int i = 0; i < 1000; i++)
    leaf();
}
__attribute__((noinline)) pid_t spawn(void) {
  pid_t p = fork();
  if (p == 0)
    child_work();
  return p;
}
int main(void) {
  pid_t p = spawn();
  if (p <= 0)
    return p < 0;
  int st;
  if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
    return 1;
  for (int i = 0; i < 1000; i++)
    leaf();
  return 0;
}
