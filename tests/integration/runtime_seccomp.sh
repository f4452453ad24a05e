#!/bin/sh
# runtime_seccomp.sh - a program under a seccomp filter that kills the
# process for a perf_event_open (as a service manager's system call filter
# does for every call it does not list): installed by the program with
# prctl() or a seccomp system call, or before the exec by its launcher.  The
# runtime then makes no perf_event_open (a thread started later, and a fork
# child, go without their transition counter; a process started under the
# filter records with --transitions none): the program runs to its end with
# a plain run's output and status, every call of its own, its thread's and
# its fork child's recorded, and info says why they have no counter.
# A filter that kills for socket(): a fork child made under it, which lives
# 20 ms, exits as in a plain run (the runtime made it no control socket;
# before, the child's control thread killed it at its socket, 5 ms in).
. "$INCLPROF_SRC/tests/lib.sh"
cat >filtered.c <<'SRC'
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }
static void *thr(void *a) {
  for (int i = 0; i < 1000; i++)
    work(i);
  return a;
}
int main(int argc, char **argv) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog p = {4, f};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    return 1;
  if (!strcmp(argv[1], "exec")) { /* the launcher: the filter, then the program */
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p))
      return 1;
    execv(argv[0], (char *[]){argv[0], "none", NULL});
    return 127;
  }
  for (int i = 0; i < 1000; i++)
    work(i);
  int rc = !strcmp(argv[1], "prctl")     ? prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p)
           : !strcmp(argv[1], "syscall") ? (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p)
                                         : 0;
  pthread_t t;
  pthread_create(&t, 0, thr, 0);
  pthread_join(t, 0);
  pid_t c = fork();
  if (c == 0) {
    for (int i = 0; i < 1000; i++)
      work(i);
    _exit(0);
  }
  int st;
  waitpid(c, &st, 0);
  printf("filter %d, child status %d\n", rc, st);
  return 0;
}
SRC
gcc -O2 -pthread -fplugin="$INCLPROF_PLUGIN" -o filtered filtered.c || { fail "build filtered"; exit 1; }
for how in prctl syscall exec; do
  ./filtered $how >plain.out 2>&1
  check_eq "$how: plain run, its status" 0 "$?"
  "$INCLPROF" record -o out-$how -- ./filtered $how >prof.out 2>prof.err
  check_eq "$how: recorded, the program's status (not killed by SIGSYS)" 0 "$?"
  check_eq "$how: recorded, the program's output" "$(cat plain.out)" "$(cat prof.out)"
  "$INCLPROF" report out-$how --by function 2>/dev/null >report
  check "$how: every work() call of the process, its thread and its child recorded" \
    awk '$NF == "work" && $1 == 3000 { found = 1 } END { exit !found }' report
  "$INCLPROF" info out-$how >info 2>&1
  # exec: the launcher's image ends its trace at the exec
  traces=2; [ $how = exec ] && traces=3
  check_eq "$how: every trace ends cleanly" $traces "$(grep -c '^trailer:      clean shutdown' info)"
  if [ $how = exec ]; then
    check "$how: info says why the process records without transitions" \
      grep -q 'kevents: not tried: the process runs under a seccomp filter' info
  elif grep -q '^transitions:  kevents' info; then
    check "$how: info says why the threads after the filter have no counter" \
      grep -q 'without a counter (the program installed a seccomp filter)' info
  fi
done

cat >sockkill.c <<'SRC'
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }
int main(void) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof f / sizeof *f, f};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
    return 2;
  pid_t p = fork();
  if (p == 0) {
    for (int i = 0; i < 1000; i++)
      work(i);
    struct timespec t = {0, 20000000};
    nanosleep(&t, NULL);
    _exit(7);
  }
  int st;
  waitpid(p, &st, 0);
  printf("child %s %d\n", WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  return 0;
}
SRC
cc_plugin sockkill -O1 sockkill.c && gcc -O1 sockkill.c -o sockkill_plain || { fail "build sockkill"; exit 1; }
check_eq "socket() killed by a filter: the plain run's child" "child exit 7" "$(./sockkill_plain)"
check_eq "... and the recorded one's" "child exit 7" "$("$INCLPROF" record -o sk -- ./sockkill 2>/dev/null)"
ended=0
for f in sk/*.ipb; do
  "$INCLPROF" info "$f" 2>/dev/null | grep -q '^trailer: *clean shutdown' && ended=$((ended + 1))
done
check_eq "... both traces end cleanly" 2 "$ended"
done_testing
