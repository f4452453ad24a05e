/* fork_pair.c - a parent and its fork child for the service tests: both
 * wait for the file "go", then the child calls work() 500 times and the
 * parent 300 times, each writes "child-done" or "parent-done", and both
 * end once the file "quit" exists. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(unsigned long i) { sink += i; }

static void wait_for(const char *path) {
  while (access(path, F_OK) != 0)
    usleep(20000);
}

int main(void) {
  work(0); /* the runtime starts before the fork */
  pid_t child = fork();
  if (child < 0)
    return 1;
  wait_for("go");
  for (unsigned long i = 0; i < (child == 0 ? 500u : 300u); i++)
    work(i);
  FILE *f = fopen(child == 0 ? "child-done" : "parent-done", "w");
  if (!f || fclose(f))
    return 1;
  wait_for("quit");
  if (child)
    waitpid(child, NULL, 0);
  return 0;
}
