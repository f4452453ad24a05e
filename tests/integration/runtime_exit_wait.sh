#!/bin/sh
# runtime_exit_wait.sh - a recorded process starts and ends about as fast
# as the same program plain: the runtime adds a little CPU time at start
# (its settings, its events, its threads), and nothing that waits - for the
# kernel to unregister a tracepoint (an RCU grace period, 25-50 ms), for the
# disk to take back a file's blocks (the trace's space reserve, a discard on
# this machine's file system), for a thread to answer or to end (the writer
# thread, which must run once more to exit, waited behind every ordinary
# task of a busy machine as SCHED_BATCH: 6-22 ms, median of 15, at a load
# of 24).  A small program (20 000 calls: two full buffers, the second
# handed to the writer thread, INCLPROF_WRITER=thread), built plain and with
# the plugin, runs N times each, interleaved, under
# one `inclprof record` (kevents transitions as root, with record's
# tracepoint holder): a small uninstrumented harness forks and execs it and
# takes the time from the fork to the program's first clock reading in main
# (start) and from its last one to the end of waitpid (exit).  Run at a
# real-time priority when the machine allows it (other programs then take
# no time from the runs); otherwise the bounds widen with the spread.
# Checks, on the medians: the recorded exit within 2 ms plus three times the
# plain exits' interquartile range of the plain exit (and at a real-time
# priority its third quartile of the plain one's: the writer's wait held
# one exit in two), the start within 5 ms plus that of the plain starts;
# every recorded run has a whole trace, and its writer thread wrote a buffer.
. "$INCLPROF_SRC/tests/lib.sh"
N=15
cat >prog.c <<'SRC'
#include <stdio.h>
#include <time.h>
static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}
__attribute__((noinline)) static int twice(int x) { return 2 * x; }
int main(void) {
  long long a = now_ns();
  int s = 0;
  for (int i = 0; i < 20000; i++)
    s += twice(i);
  long long b = now_ns();
  dprintf(3, "%lld %lld %d\n", a, b, s);
  return 0;
}
SRC
cat >pair.c <<'SRC'
/* pair N PLAIN RECORDED: runs each N times, interleaved (which goes first
 * alternates); prints "plain|rec START_US EXIT_US SUM" per run.  The plain
 * one runs without the runtime preloaded. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}
static int run(const char *what, char *prog, int plain) {
  int p[2];
  if (pipe(p))
    return 1;
  long long t0 = now_ns();
  pid_t c = fork();
  if (c == 0) {
    if (plain)
      unsetenv("LD_PRELOAD");
    dup2(p[1], 3);
    execl(prog, prog, (char *)NULL);
    _exit(127);
  }
  close(p[1]);
  int st;
  waitpid(c, &st, 0);
  long long t1 = now_ns();
  char buf[128];
  ssize_t k = read(p[0], buf, sizeof buf - 1);
  close(p[0]);
  long long a, b;
  int s;
  if (k <= 0 || (buf[k] = 0, sscanf(buf, "%lld %lld %d", &a, &b, &s) != 3))
    return 1;
  printf("%s %.1f %.1f %d\n", what, (a - t0) / 1e3, (t1 - b) / 1e3, s);
  return 0;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  for (int i = 0; i < n; i++) {
    int first = i % 2;
    if (run(first ? "rec" : "plain", argv[2 + first], !first) ||
        run(first ? "plain" : "rec", argv[3 - first], first))
      return 1;
  }
  return 0;
}
SRC
gcc -O2 -o prog_plain prog.c && cc_plugin prog_rec prog.c -O2 && gcc -O2 -o pair pair.c ||
  { fail "build the programs"; exit 1; }
prio=
chrt -f 10 true 2>/dev/null && prio="chrt -f 10"
INCLPROF_WRITER=thread $prio "$INCLPROF" record -o out ./pair "$N" ./prog_plain ./prog_rec >runs.txt 2>record.err
check_eq "the harness ran $N plain and $N recorded runs" "$N $N" \
  "$(grep -c '^plain ' runs.txt) $(grep -c '^rec ' runs.txt)"
check_eq "every run printed the program's sum" "399980000" "$(awk '{ print $4 }' runs.txt | sort -u | paste -sd' ' -)"
check_eq "every recorded run wrote a trace" "$N" "$(ls out/*.ipb 2>/dev/null | wc -l)"
"$INCLPROF" info out >info.txt 2>&1
check_eq "every trace is whole: a clean end, nothing dropped" "$N" \
  "$(grep -c '^trailer: *clean shutdown, exit reason: exit; [0-9]* events written, 0 dropped' info.txt)"
check_eq "every recorded run's writer thread wrote a buffer" "$N" \
  "$(grep -c '^writer: *1 full buffers written by the runtime.s writer thread' info.txt)"

# stat KIND FIELD: "median iqr q3" of FIELD (2 start, 3 exit) of KIND's runs, in ms
stat() {
  awk -v k="$1" -v f="$2" '$1 == k { print $f / 1000 }' runs.txt | sort -n |
    awk '{ v[NR] = $1 } END { q1 = v[int(NR / 4) + 1]; q3 = v[int(3 * NR / 4) + 1]
      printf "%.2f %.2f %.2f", v[int((NR + 1) / 2)], q3 - q1, q3 }'
}
set -- $(stat plain 2) $(stat rec 2) $(stat plain 3) $(stat rec 3)
ps=$1 psq=$2 rs=$4 pe=$7 peq=$8 pe3=$9 re=${10} re3=${12}
echo "# medians (interquartile range) in ms, ${prio:-normal priority}: start plain $ps ($psq) recorded $rs ($5); exit plain $pe ($peq) recorded $re (${11}); load $(cut -d' ' -f1 /proc/loadavg)"
check "the recorded exit within 2 ms + 3 IQR of the plain one: nothing waits at exit (plain $pe ms, recorded $re ms)" \
  awk -v p="$pe" -v q="$peq" -v r="$re" 'BEGIN { exit !(r - p <= 2 + 3 * q) }'
# At an ordinary priority the other programs' turns come between a
# process's threads too: the quartile says something only at a real-time one.
if [ -n "$prio" ]; then
  check "the recorded exits' third quartile too: no exit in four waits for a thread (plain $pe3 ms, recorded $re3 ms)" \
    awk -v p="$pe3" -v q="$peq" -v r="$re3" 'BEGIN { exit !(r - p <= 2 + 3 * q) }'
else
  echo "# the third quartile is checked only at a real-time priority (chrt -f 10 refused)"
fi
check "the recorded start within 5 ms + 3 IQR of the plain one (plain $ps ms, recorded $rs ms)" \
  awk -v p="$ps" -v q="$psq" -v r="$rs" 'BEGIN { exit !(r - p <= 5 + 3 * q) }'
done_testing
