#!/bin/sh
# runtime_seccomp_strict.sh - a program that puts a thread in seccomp's
# strict mode (after which the thread may make only read, write, exit and
# sigreturn system calls, and rdtsc raises SIGSEGV in it): with prctl(), a
# seccomp system call and a prctl system call through syscall(), in main
# (then the program's last thread, ending with a raw SYS_exit, or leaving
# main, whose exit_group the kernel answers with SIGKILL) and in a second
# thread, with sampling on.  The thread stops recording just before: the
# recorded run's status and output are the plain run's (the old runtime was
# killed at its next probe or exit handler), the trace holds that thread's
# calls before and none after, every trace ends cleanly, and record's
# summary, info and report's header say why the thread stopped.  A thread
# that crashes in strict mode (SIGSEGV), in main or in a second thread, ends
# the process with SIGSEGV as in a plain run (the old runtime's handler was
# killed with SIGKILL at its first system call, and the other threads ran
# on). A filter (SECCOMP_MODE_FILTER) is not strict mode: the thread
# records on.
. "$INCLPROF_SRC/tests/lib.sh"
ulimit -c 0 # the crashes leave no core file
cat >strict.c <<'SRC'
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile long sink;
static const char *how;
static int crash;
__attribute__((noinline)) void before(int i) { sink += i; }
__attribute__((noinline)) void after(int i) { sink += i; }
__attribute__((noinline)) void in_main(int i) { sink += i; }
static int enter(void) {
  if (!strcmp(how, "seccomp"))
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL);
  if (!strcmp(how, "syscall"))
    return (int)syscall(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
  if (!strcmp(how, "filter")) { /* allows every call */
    struct sock_filter f[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    struct sock_fprog prog = {1, f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
      return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
  }
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
}
/* Calls before(), enters the mode, calls after() and writes what it did:
 * only write() and a raw exit from here on. */
static void run(const char *who) {
  for (int i = 0; i < 300; i++)
    before(i);
  int rc = enter();
  for (int i = 0; i < 200; i++)
    after(i);
  char line[64];
  int n = snprintf(line, sizeof line, "%s %s: entered %d, sum %ld\n", who, how, rc, sink);
  if (write(1, line, (size_t)n) != n)
    syscall(SYS_exit, 1);
  if (crash)
    *(volatile int *)0 = 1;
}
static void *thr(void *a) {
  run("thread");
  syscall(SYS_exit, 0);
  return a;
}
int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  how = argv[2];
  crash = argc > 3;
  if (!strcmp(argv[1], "thread")) { /* a second thread; main records on and exits */
    pthread_t t;
    pthread_create(&t, 0, thr, 0);
    pthread_join(t, 0);
    for (int i = 0; i < 50; i++)
      in_main(i);
    printf("main: sum %ld\n", sink);
    return 0;
  }
  run("main");
  if (!strcmp(argv[1], "exit")) { /* exit's handlers, then exit_group: SIGKILL */
    printf("main: leaving\n");
    return 3;
  }
  syscall(SYS_exit, 4); /* the last program thread, ending without libc */
  return 5;
}
SRC
gcc -O2 -pthread -fplugin="$INCLPROF_PLUGIN" -o strict strict.c || { fail "build strict"; exit 1; }
./strict main prctl >/dev/null 2>&1 || [ $? = 4 ] || { ok "# SKIP: seccomp's strict mode is not available here"; exit 0; }
# calls of a function in report's table (0 without a row)
calls() { awk -v f="$1" '$NF == f { n = $1 } END { print n + 0 }' report; }
why='stopped recording before it ended: the program put the thread in seccomp strict mode at'
for v in "main prctl" "main seccomp" "main syscall" "exit prctl" "thread prctl" "thread seccomp" \
  "sampled prctl" "main filter" "main prctl crash" "thread seccomp crash"; do
  set -- $v
  where=$1 opt= crash=${3-}
  [ $1 = sampled ] && where=main opt="--sample-hz 5000"
  name=$1-$2${crash:+-$crash}
  # shellcheck disable=SC2086 # crash: a word or none
  timeout -s KILL 20 ./strict $where $2 $crash >plain.out 2>plain.err
  plain_rc=$?
  # shellcheck disable=SC2086 # opt: none or two words
  timeout -s KILL 20 "$INCLPROF" record -o out-$name $opt -- ./strict $where $2 $crash >prof.out 2>prof.err
  check_eq "$name: recorded, the plain run's status" $plain_rc $?
  check_eq "$name: recorded, the plain run's output" "$(cat plain.out)" "$(cat prof.out)"
  "$INCLPROF" report out-$name --by function >report 2>&1
  "$INCLPROF" info out-$name >info 2>&1
  if [ "$crash" = crash ]; then
    check_eq "$name: plain run, its status (SIGSEGV)" 139 $plain_rc
    check "$name: the Trailer says the process died of SIGSEGV" \
      grep -q '^trailer:      NOT clean, exit reason: signal 11;' info
  else
    check_eq "$name: every trace ended cleanly" 1 "$(grep -c '^trailer:      clean shutdown' info)"
  fi
  check_eq "$name: the calls before, all recorded" 300 "$(calls before)"
  if [ $2 = filter ]; then
    check_eq "$name: plain run, its status (the raw exit)" 4 $plain_rc
    check_eq "$name: a filter, not strict mode: the calls after, recorded" 200 "$(calls after)"
    check "$name: no thread stopped" sh -c "! grep -q 'stopped recording' prof.err report info"
    continue
  fi
  case $1$crash in
    *crash) ;;
    exit) check_eq "$name: plain run, its status (exit_group killed)" 137 $plain_rc ;;
    thread) check_eq "$name: plain run, its status" 0 $plain_rc ;;
    *) check_eq "$name: plain run, its status (the raw exit)" 4 $plain_rc ;;
  esac
  check_eq "$name: no call after strict mode" 0 "$(calls after)"
  [ $1$crash = thread ] && check_eq "$name: the main thread's calls after it, recorded" 50 "$(calls in_main)"
  check "$name: record's summary says why the thread stopped" grep -q "$why" prof.err
  check "$name: report's header says why the thread stopped" grep -q "$why [0-9.]* ms" report
  check "$name: info says why the thread stopped" \
    grep -q "^stopped:      thread [0-9]* $why" info
done
done_testing
