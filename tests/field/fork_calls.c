/* fork_calls.c - a parent calls tick() N times and forks; parent and child
 * then call tock() M times each and exit().  Built with -pg, it shows
 * whether gprof's files count each process's own calls (tick N, tock 2 M in
 * all) or the parent's calls again in the child (tick 2 N). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

volatile unsigned long sink;
__attribute__((noinline)) void tick(unsigned long i) { sink += i; }
__attribute__((noinline)) void tock(unsigned long i) { sink ^= i; }

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fork_calls N M\n");
    return 2;
  }
  unsigned long n = strtoul(argv[1], NULL, 10), m = strtoul(argv[2], NULL, 10);
  for (unsigned long i = 0; i < n; i++)
    tick(i);
  pid_t child = fork();
  if (child < 0)
    return 1;
  for (unsigned long i = 0; i < m; i++)
    tock(i);
  if (child == 0)
    exit(0);
  int status;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return 1;
  return 0;
}
