#!/bin/sh
# runtime_seccomp_files.sh - a program installs a seccomp filter that
# refuses opening and creating files with EACCES (as OpenSSH's sandbox
# does), then forks 5 children one after another that compute and exit.
# The runtime makes each child's trace file ahead (before the filter, then
# in its control thread after each fork): every child's trace is there with
# its exact counts, and the program's output and status are a plain run's.
# With the filter applied to every thread (TSYNC), the control thread cannot
# make them after the first: record's summary names the filter as the cause
# of the 4 children not recorded, not the directory; so it does for all 5
# where a filter installed earlier also refuses linkat.
. "$INCLPROF_SRC/tests/lib.sh"
cat >sandboxed.c <<'SRC'
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#define DENY(nr)                                                                                   \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES)
static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }
int main(int argc, char **argv) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      DENY(__NR_openat),
      DENY(__NR_open),
      DENY(__NR_creat),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_filter g[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      DENY(__NR_linkat),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog p = {sizeof f / sizeof f[0], f}, q = {sizeof g / sizeof g[0], g};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    return 1;
  if (argc > 1 && !strcmp(argv[1], "nolink") && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &q))
    return 1;
  int rc = argc > 1 && !strcmp(argv[1], "tsync")
               ? (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &p)
               : prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p);
  for (int c = 0; c < 5; c++) {
    pid_t pid = fork();
    if (pid == 0) {
      for (int i = 0; i < 1000 * (c + 1); i++)
        work(i);
      _exit(c);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("child %d status %d\n", c, WEXITSTATUS(st));
    fflush(stdout);
  }
  printf("filter %d, open after it: %d\n", rc, fopen("sandboxed.c", "r") != NULL);
  return 3;
}
SRC
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o sandboxed sandboxed.c || { fail "build sandboxed"; exit 1; }
./sandboxed >plain.out 2>&1
check_eq "plain run: its status" 3 "$?"
for round in 1 2 3; do
  rm -rf out
  "$INCLPROF" record -o out -- ./sandboxed >prof.out 2>prof.err
  check_eq "round $round: recorded, the program's status" 3 "$?"
  check_eq "round $round: recorded, the program's output" "$(cat plain.out)" "$(cat prof.out)"
  check_eq "round $round: the program's trace and each child's" 6 "$(ls out/*.ipb | wc -l)"
  "$INCLPROF" report out --by function 2>/dev/null >report
  # 1000 + 2000 + ... + 5000 work() calls in the children
  check "round $round: every child's work() calls counted" \
    awk '$NF == "work" && $1 == 15000 { found = 1 } END { exit !found }' report
  check "round $round: record says nothing was lost" sh -c '! grep -q "not recorded" prof.err'
done
rm -rf out
"$INCLPROF" record -o out -- ./sandboxed tsync >prof.out 2>prof.err
check_eq "tsync: recorded, the program's status" 3 "$?"
./sandboxed tsync >plain.out 2>&1
check_eq "tsync: recorded, the program's output" "$(cat plain.out)" "$(cat prof.out)"
check_eq "tsync: the program's trace and the first child's (made before the filter)" 2 \
  "$(ls out/*.ipb | wc -l)"
check "tsync: record's summary names the filter as the cause" \
  grep -q "4 processes of this run were not recorded; the first: the program's seccomp filter refused creating the trace file" prof.err
check "tsync: and not the directory's permissions" sh -c '! grep -q "writable" prof.err'
rm -rf out
"$INCLPROF" record -o out -- ./sandboxed nolink >prof.out 2>prof.err
check_eq "nolink: recorded, the program's status" 3 "$?"
./sandboxed nolink >plain.out 2>&1
check_eq "nolink: recorded, the program's output" "$(cat plain.out)" "$(cat prof.out)"
check_eq "nolink: the program's trace alone" 1 "$(ls out/*.ipb | wc -l)"
check "nolink: record's summary names the filter for the 5 children" \
  grep -q "5 processes of this run were not recorded; the first: the program's seccomp filter refused creating the trace file" prof.err
done_testing
