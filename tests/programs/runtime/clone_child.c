/* clone_child.c - children started without fork's handlers.
 *   clone_child clone|clone3|fork-syscall|_Fork N: the child (clone() with
 *     SIGCHLD on a stack of two pages, as googletest's "threadsafe" death
 *     tests start theirs; a clone3 or fork system call through syscall();
 *     glibc's _Fork) calls work() N times and exits with 0 when it counted N
 *     calls.  The parent calls work() 10 times and prints how the child
 *     ended.
 *   clone_child clone-exec N: the clone() child execs this program, which
 *     calls work() N times ("exec'd work N").
 *   clone_child clone-fork N: the clone() child forks; its child calls
 *     work() N times, and the clone child exits with its status.
 * Output: "child: status S, parent work 10". */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long work_calls, n;
static char *self;

__attribute__((noinline)) void work(void) { work_calls++; }

static int child_main(void *arg) {
  (void)arg;
  work_calls = 0;
  for (long i = 0; i < n; i++)
    work();
  return work_calls == n ? 0 : 1;
}

static int fork_main(void *arg) {
  pid_t pid = fork();
  if (pid == 0)
    _exit(child_main(arg));
  int st;
  return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int exec_main(void *arg) {
  (void)arg;
  char count[32];
  snprintf(count, sizeof count, "%ld", n);
  execl(self, self, "exec'd", count, (char *)NULL);
  return 127;
}

__attribute__((noinline)) long start(const char *how) {
  if (!strncmp(how, "clone-", 6) || !strcmp(how, "clone")) {
    size_t size = 2 * (size_t)getpagesize();
    char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int (*fn)(void *) = !strcmp(how, "clone")        ? child_main
                        : !strcmp(how, "clone-exec") ? exec_main
                                                     : fork_main;
    return clone(fn, stack + size, SIGCHLD, NULL);
  }
  long pid;
  if (!strcmp(how, "clone3")) {
    struct clone_args ca;
    memset(&ca, 0, sizeof ca);
    ca.exit_signal = SIGCHLD;
    pid = syscall(SYS_clone3, &ca, sizeof ca);
  } else if (!strcmp(how, "fork-syscall")) {
    pid = syscall(SYS_fork);
  } else {
    pid = _Fork();
  }
  if (pid == 0)
    _exit(child_main(NULL));
  return pid;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  self = argv[0];
  n = atol(argv[2]);
  if (!strcmp(argv[1], "exec'd")) {
    for (long i = 0; i < n; i++)
      work();
    printf("exec'd work %ld\n", work_calls);
    return 0;
  }
  long pid = start(argv[1]);
  int st = 0;
  if (pid < 0 || waitpid((pid_t)pid, &st, 0) != pid)
    return 3;
  for (int i = 0; i < 10; i++)
    work();
  fflush(stdout);
  printf("child: %s %d, parent work %ld\n", WIFEXITED(st) ? "status" : "signal",
         WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), work_calls);
  return 0;
}
