#!/bin/sh
# runtime_chroot.sh - a program that changes its root or its user, as
# daemons do, then starts a thread and forks.  chroot() into an empty
# directory (no trace directory, no /proc in it): the fork child creates its
# trace through the directory's descriptor, so both traces hold every call,
# the child's header still names the program, and the thread started after
# the chroot has its transition counter.  setuid() to nobody as root, with
# the trace directory root's: the children cannot create their traces, and
# record's summary says why and what to do (and how many, for three
# children); with a directory nobody may
# write (mode 1777) every process is recorded, and nobody can read the
# report.
. "$INCLPROF_SRC/tests/lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
  echo "skip: needs root (chroot, setuid) and setpriv"
  exit 0
fi
cat >jail.c <<'SRC'
#define _GNU_SOURCE
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }
__attribute__((noinline)) void child_work(int i) { sink += i; }
static void *thr(void *a) {
  for (int i = 0; i < 1000; i++)
    work(i);
  return a;
}
int main(int argc, char **argv) {
  for (int i = 0; i < 1000; i++)
    work(i);
  if (!strcmp(argv[1], "chroot") ? chroot(argv[2]) || chdir("/")
                                 : setgroups(0, NULL) || setgid(atoi(argv[3])) || setuid(atoi(argv[2])))
    return 2;
  pthread_t t;
  pthread_create(&t, 0, thr, 0);
  pthread_join(t, 0);
  int children = argc > 4 ? atoi(argv[4]) : 1;
  for (int k = 0; k < children; k++) {
    pid_t c = fork();
    if (c == 0) {
      for (int i = 0; i < 1000; i++)
        child_work(i);
      exit(0);
    }
    int st;
    waitpid(c, &st, 0);
    printf("child status %d\n", st);
  }
  return 0;
}
SRC
gcc -O2 -pthread -fplugin="$INCLPROF_PLUGIN" -o jail jail.c || { fail "build jail"; exit 1; }
chmod 755 "$T_DIR"
uid=$(id -u nobody) gid=$(id -g nobody)

# ---- chroot ----------------------------------------------------------------
mkdir empty
"$INCLPROF" record -o out-chroot -- ./jail chroot "$T_DIR/empty" >prog.out 2>rec.err
check_eq "chroot: the program's status" 0 "$?"
check_eq "chroot: the program's output" "child status 0" "$(cat prog.out)"
check_eq "chroot: both processes' traces" "inclprof: 2 trace files written to out-chroot/ (status 0)" \
  "$(cat rec.err)"
"$INCLPROF" report out-chroot --by function 2>/dev/null >report
check "chroot: every work() call, the thread's after the chroot too" \
  awk '$NF == "work" && $1 == 2000 { found = 1 } END { exit !found }' report
check "chroot: every child_work() call of the fork child" \
  awk '$NF == "child_work" && $1 == 1000 { found = 1 } END { exit !found }' report
"$INCLPROF" info out-chroot >info 2>&1
check_eq "chroot: both traces end cleanly" 2 "$(grep -c '^trailer:      clean shutdown, exit reason: exit;' info)"
check_eq "chroot: the child's header names the program as its parent's" 2 \
  "$(grep -c "^executable:   $T_DIR/jail\$" info)"
if grep -q '^transitions:  kevents' info; then
  check_eq "chroot: the thread started after it has its counter" "" "$(grep 'without a counter' info)"
fi

# ---- setuid ----------------------------------------------------------------
"$INCLPROF" record -o out-root -- ./jail setuid $uid $gid >prog.out 2>rec.err
check_eq "setuid, the directory root's: the program's status" 0 "$?"
check_eq "setuid, the directory root's: the program's output" "child status 0" "$(cat prog.out)"
check "setuid, the directory root's: record's summary says why the child has no trace and what to do" \
  grep -q "not recorded: cannot create $T_DIR/out-root/[0-9]*.ipb: Permission denied (the process runs as uid $uid, gid $gid: make $T_DIR/out-root writable for it" rec.err
"$INCLPROF" record -o out-root3 -- ./jail setuid $uid $gid 3 >prog.out 2>rec.err
check_eq "setuid, three children: the program's status" 0 "$?"
check "setuid, three children: record's summary counts them, with the first one's words" \
  grep -q "^inclprof record: 3 processes of this run were not recorded; the first: cannot create $T_DIR/out-root3/[0-9]*.ipb: Permission denied (the process runs as uid $uid, gid $gid" rec.err
mkdir -m 1777 out-open
"$INCLPROF" record -o out-open -- ./jail setuid $uid $gid >prog.out 2>rec.err
check_eq "setuid, a directory nobody may write: every process recorded" \
  "inclprof: 2 trace files written to out-open/ (status 0)" "$(cat rec.err)"
setpriv --reuid=$uid --regid=$gid --clear-groups "$INCLPROF" report out-open --by function \
  2>report.err >report
check_eq "setuid: nobody reads the report" "" "$(grep -v '^warning:' report.err)"
check "setuid: every work() call" awk '$NF == "work" && $1 == 2000 { found = 1 } END { exit !found }' report
check "setuid: every child_work() call" \
  awk '$NF == "child_work" && $1 == 1000 { found = 1 } END { exit !found }' report
done_testing
