/* fork_bench.c - `make bench-fork`'s program: how soon a fork child runs.
 *   fork_bench line N: forks N times; the parent reads CLOCK_MONOTONIC just
 *     before fork, each child reads it first thing and sends it up a pipe,
 *     then _exits.  Prints one line a fork: the child's first line less the
 *     parent's reading, and fork's return in the parent less it, in ns.
 *   fork_bench exec N: forks N times, each child exec'ing /bin/true (the
 *     spawn a shell does).  Prints the time from just before fork to
 *     waitpid's return, in ns, one line a fork.
 * Built with the plugin, so that its calls are recorded when it runs under
 * the runtime. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

__attribute__((noinline)) static int64_t first_line(void) { return now_ns(); }

__attribute__((noinline)) static void one_line(const int fds[2]) {
  int64_t t0 = now_ns();
  pid_t p = fork();
  if (p == 0) {
    int64_t t = first_line();
    _exit(write(fds[1], &t, sizeof t) == (ssize_t)sizeof t ? 0 : 1);
  }
  int64_t back = now_ns();
  if (p < 0) {
    perror("fork");
    exit(1);
  }
  int64_t t = 0;
  if (read(fds[0], &t, sizeof t) != (ssize_t)sizeof t)
    t = t0;
  waitpid(p, NULL, 0);
  printf("%lld %lld\n", (long long)(t - t0), (long long)(back - t0));
}

__attribute__((noinline)) static void one_exec(void) {
  int64_t t0 = now_ns();
  pid_t p = fork();
  if (p == 0) {
    execl("/bin/true", "true", (char *)0);
    _exit(127);
  }
  if (p < 0) {
    perror("fork");
    exit(1);
  }
  int st;
  waitpid(p, &st, 0);
  printf("%lld\n", (long long)(now_ns() - t0));
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "line") && strcmp(argv[1], "exec"))) {
    fprintf(stderr, "usage: fork_bench line|exec N\n");
    return 2;
  }
  int n = atoi(argv[2]);
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    return 1;
  }
  for (int i = 0; i < n; i++)
    if (!strcmp(argv[1], "line"))
      one_line(fds);
    else
      one_exec();
  return 0;
}
