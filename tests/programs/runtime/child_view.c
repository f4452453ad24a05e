/* child_view.c - what a child sees of its parent's choices: its
 * environment, its descriptors and its user.  Each mode prints the child's
 * view on stdout (and the child's own words on stderr), so a recorded run
 * can be compared with a plain one line for line.
 *   env      execve of a child with an empty environment, then with {A=1}:
 *            the child prints the names it sees
 *   badout   execve of a child whose environment names an output directory
 *            that cannot be made (INCLPROF_OUTPUT=/proc/none/out)
 *   fds      opens 40 files, keeps the 26 highest, lowers RLIMIT_NOFILE to
 *            29, then runs a child that closes every descriptor from 3 on
 *            (close_range) and runs a grandchild: both print the numbers
 *            fstat() finds open below the soft limit (the grandchild also
 *            up to the parent's highest)
 *   user     (root) a child that changes to uid/gid 65534 before execve of
 *            a program that writes a line on stderr
 * Usage: child_view env|badout|fds|user */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static char self[4096];

__attribute__((noinline)) static int names(void) {
  int n = 0;
  printf("env:");
  for (char **e = environ; *e; e++, n++)
    printf(" %.*s", (int)strcspn(*e, "="), *e);
  printf(" (%d)\n", n);
  return n;
}

/* Open descriptors below limit, by fstat, as a program that checks every
 * number it may hold finds them. */
__attribute__((noinline)) static void open_fds(const char *who, long limit) {
  printf("%s:", who);
  for (long fd = 0; fd < limit; fd++) {
    struct stat st;
    if (fstat((int)fd, &st) == 0)
      printf(" %ld", fd);
  }
  printf("\n");
}

static int run(char *const argv[], char *const envp[], int closing) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    if (closing)
      close_range(3, ~0u, 0);
    execve(self, argv, envp);
    _exit(127);
  }
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv) {
  if (readlink("/proc/self/exe", self, sizeof self - 1) < 0 || argc < 2)
    return 2;
  const char *mode = argv[1];
  if (!strcmp(mode, "names"))
    return names() > 9;
  if (!strcmp(mode, "speak")) {
    fprintf(stderr, "child as uid %u speaks\n", (unsigned)geteuid());
    return 0;
  }
  if (!strcmp(mode, "grandchild")) {
    open_fds("grandchild", atol(argv[2]));
    return 0;
  }
  if (!strcmp(mode, "child")) {
    open_fds("child", sysconf(_SC_OPEN_MAX));
    char *gc[] = {self, "grandchild", argv[2], NULL};
    return run(gc, environ, 1);
  }
  if (!strcmp(mode, "env")) {
    char *child[] = {self, "names", NULL};
    char *none[] = {NULL};
    char *one[] = {"A=1", NULL};
    return run(child, none, 0) | run(child, one, 0);
  }
  if (!strcmp(mode, "badout")) {
    char *child[] = {self, "names", NULL};
    char *bad[] = {"INCLPROF_OUTPUT=/proc/none/out", NULL};
    return run(child, bad, 0);
  }
  if (!strcmp(mode, "fds")) {
    int fds[40];
    for (int i = 0; i < 40; i++)
      fds[i] = open("/dev/null", O_RDONLY);
    for (int i = 0; i < 14; i++)
      close(fds[i]);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = 29;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
      return 3;
    char top[16];
    snprintf(top, sizeof top, "%d", fds[39] + 1);
    char *child[] = {self, "child", top, NULL};
    return run(child, environ, 0);
  }
  if (!strcmp(mode, "user")) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      if (setgid(65534) != 0 || setuid(65534) != 0)
        _exit(3);
      execl(self, self, "speak", (char *)0);
      _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return 0;
  }
  return 2;
}
