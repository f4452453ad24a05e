/* last_thread_raw.c - a process whose only thread ends without libc.
 *   last_thread_raw exit N: calls work() N times, then syscall(SYS_exit, 3)
 *     (the thread alone: the process ends with status 3).
 *   last_thread_raw strict N: calls work() N times, enters seccomp's strict
 *     mode and calls getppid, which kills the thread with SIGKILL.
 *   last_thread_raw kill-thread N: calls work() N times, installs a filter
 *     that kills the calling thread at getppid (SECCOMP_RET_KILL_THREAD),
 *     and calls it: the thread ends with SIGSYS.
 * Each prints "work W" (the calls it made) with write() before it ends. */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long work_calls;

__attribute__((noinline)) void work(void) { work_calls++; }

static void say_work(void) {
  char line[32];
  int len = snprintf(line, sizeof line, "work %ld\n", work_calls);
  if (write(1, line, (size_t)len) != len)
    return;
}

/* Kills the thread that calls getppid; allows every other call. */
static int kill_thread_at_getppid(void) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof f / sizeof f[0], f};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  long n = atol(argv[2]);
  for (long i = 0; i < n; i++)
    work();
  say_work();
  if (!strcmp(argv[1], "exit")) {
    syscall(SYS_exit, 3);
  } else if (!strcmp(argv[1], "strict")) {
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) != 0)
      return 4;
    syscall(SYS_getppid);
  } else if (!strcmp(argv[1], "kill-thread")) {
    if (kill_thread_at_getppid() != 0)
      return 4;
    syscall(SYS_getppid);
  }
  return 5;
}
