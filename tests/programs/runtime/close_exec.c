/* close_exec.c - a forked child that closes every descriptor above stderr
 * and execs, as a spawning library does before it runs a command; its
 * stderr is a pipe the parent reads to the end (a parent that parses its
 * child's stderr sees whatever lands there).
 *   close_exec closefrom|raw N: the child calls work() N times, closes every
 *     descriptor from 3 up (closefrom(), or a close_range system call of its
 *     own that no library sees), then execs this program, which calls work()
 *     N times.
 * Output: "child: status S, stderr B bytes" and what the child wrote. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long work_calls;

__attribute__((noinline)) void work(void) { work_calls++; }

static void close_above_stderr(const char *how) {
  if (!strcmp(how, "closefrom")) {
    closefrom(3);
    return;
  }
#if defined(__x86_64__)
  long r;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"((long)SYS_close_range), "D"(3L), "S"((long)~0U), "d"(0L)
                   : "rcx", "r11", "memory");
  (void)r;
#else
  syscall(SYS_close_range, 3, ~0U, 0);
#endif
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  long n = atol(argv[2]);
  if (!strcmp(argv[1], "exec'd")) {
    for (long i = 0; i < n; i++)
      work();
    return work_calls == n ? 0 : 1;
  }
  int err[2];
  if (pipe(err) != 0)
    return 3;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(err[1], 2);
    for (long i = 0; i < n; i++)
      work();
    close_above_stderr(argv[1]);
    execl(argv[0], argv[0], "exec'd", argv[2], (char *)NULL);
    _exit(127);
  }
  close(err[1]);
  char buf[4096];
  size_t got = 0;
  for (ssize_t r; got < sizeof buf - 1 && (r = read(err[0], buf + got, sizeof buf - 1 - got)) > 0;)
    got += (size_t)r;
  buf[got] = 0;
  int st;
  waitpid(pid, &st, 0);
  printf("child: status %d, stderr %zu bytes\n%s", WIFEXITED(st) ? WEXITSTATUS(st) : -1, got, buf);
  return 0;
}
