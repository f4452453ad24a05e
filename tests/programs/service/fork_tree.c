/* fork_tree.c - a server's process tree for `ctl --children`: the parent
 * forks two children and the first of them a grandchild, all before any
 * `ctl` (and a third child that execs /bin/sleep: recorded by nothing).
 * Each process writes its pid to "pid-ROLE", waits for the file "go",
 * calls work() a count of its own (parent 100, child1 200, child2 300,
 * grandchild 400), writes "done-ROLE", waits for "more", calls work() 50
 * times more, writes "after-ROLE", and ends once "quit" exists (each
 * parent waiting for its children). */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(unsigned long i) { sink += i; }

static void wait_for(const char *path) {
  while (access(path, F_OK) != 0)
    usleep(20000);
}

static int note(const char *what, const char *role) {
  char path[64];
  snprintf(path, sizeof path, "%s-%s", what, role);
  FILE *f = fopen(path, "w");
  return f && fprintf(f, "%d\n", (int)getpid()) > 0 && fclose(f) == 0 ? 0 : 1;
}

static int run(const char *role, unsigned long calls, pid_t sleeper) {
  if (note("pid", role))
    return 1;
  wait_for("go");
  for (unsigned long i = 0; i < calls; i++)
    work(i);
  if (note("done", role))
    return 1;
  wait_for("more");
  for (unsigned long i = 0; i < 50; i++)
    work(i);
  if (note("after", role))
    return 1;
  wait_for("quit");
  if (sleeper > 0)
    kill(sleeper, SIGTERM);
  int rc = 0, status;
  pid_t p;
  while ((p = wait(&status)) > 0)
    if (p != sleeper && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
      rc = 1;
  return rc;
}

int main(void) {
  work(0); /* the runtime starts before the forks */
  pid_t sleeper = fork();
  if (sleeper == 0) {
    execl("/bin/sleep", "sleep", "60", (char *)NULL);
    _exit(127);
  }
  if (fork() == 0)
    return fork() == 0 ? run("grandchild", 400, 0) : run("child1", 200, 0);
  if (fork() == 0)
    return run("child2", 300, 0);
  return run("parent", 100, sleeper);
}
