/* spawner.c - starts copies of itself with an environment of its own
 * choosing (only PATH and a role), each way the exec and spawn family
 * offers: posix_spawn, posix_spawnp, fork + execve, fork + execvpe and
 * fork + fexecve.  A child does `work` ROUNDS times and exits.  With the
 * argument "daemon" it first does `work` once, then detaches with daemon()
 * and, in the daemon, does `work` ROUNDS times after a short sleep. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 7

static volatile int sink;

__attribute__((noinline)) void work(void) { sink++; }

__attribute__((noinline)) int child_main(void) {
  for (int i = 0; i < ROUNDS; i++)
    work();
  return 0;
}

__attribute__((noinline)) void wait_child(pid_t pid) {
  int st;
  waitpid(pid, &st, 0);
}

__attribute__((noinline)) void start_all(const char *self) {
  char *env[] = {"PATH=/usr/bin:/bin", "SPAWNER_ROLE=child", NULL};
  char *argv[] = {(char *)self, "child", NULL};
  pid_t pid;
  if (posix_spawn(&pid, self, NULL, NULL, argv, env) == 0)
    wait_child(pid);
  if (posix_spawnp(&pid, self, NULL, NULL, argv, env) == 0)
    wait_child(pid);
  if ((pid = fork()) == 0) {
    execve(self, argv, env);
    _exit(127);
  }
  wait_child(pid);
  if ((pid = fork()) == 0) {
    execvpe(self, argv, env);
    _exit(127);
  }
  wait_child(pid);
  int fd = open(self, O_RDONLY | O_CLOEXEC);
  if ((pid = fork()) == 0) {
    fexecve(fd, argv, env);
    _exit(127);
  }
  wait_child(pid);
  close(fd);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "child"))
    return child_main();
  if (argc > 1 && !strcmp(argv[1], "daemon")) {
    work();
    if (daemon(1, 1) != 0)
      return 1;
    usleep(300000);
    return child_main();
  }
  start_all(argv[0]);
  printf("started 5 children\n");
  return 0;
}
