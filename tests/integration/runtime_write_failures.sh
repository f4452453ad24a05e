#!/bin/sh
# runtime_write_failures.sh - when the trace cannot be written (disk full, the
# process's file-size limit, the INCLPROF_MAX_SIZE limit, a directory that
# cannot be written) the program runs on with its own output and exit status,
# one line says why (on the program's stderr, or under record in record's
# summary only), recording stops cleanly, and info, report and record name
# the real cause; the trace up to the stop reads without damage.
. "$INCLPROF_SRC/tests/lib.sh"
cat >busy.c <<'SRC'
#include <stdio.h>
__attribute__((noinline)) static unsigned long work(unsigned long i) { return i * 7 + 1; }
int main(void) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < 3000000; i++) s += work(i);
  printf("sum %lu\n", s);
  return 0;
}
SRC
gcc -O2 -o busy_plain busy.c && cc_plugin busy busy.c -O2 || { fail "build busy"; exit 1; }
./busy_plain >expected.out

# stopped DESCRIPTION DIR CAUSE [LINES]: the run in DIR stopped with CAUSE,
# cleanly; LINES (default 1) lines from the runtime on stderr.
stopped() {
  check_eq "$1: program output unchanged" "$(cat expected.out)" "$(cat run.out)"
  check_eq "$1: exit status unchanged" 0 "$rc"
  check_eq "$1: lines from the runtime" "${4:-1}" "$(grep -c '^inclprof: recording stopped: ' run.err)"
  [ "${4:-1}" = 0 ] || check "$1: the line names the cause and what was kept" \
    grep -q "^inclprof: recording stopped: $3 (.*); after .* events; the trace up to there is complete; the program continues unprofiled" run.err
  "$INCLPROF" info "$2" >info 2>&1
  check_eq "$1: info reads the trace" 0 "$?"
  check "$1: info names the cause" grep -q "^trailer:      recording stopped early: $3, after [0-9]* events" info
  check "$1: no damage" grep -q "^damage:       none" info
  "$INCLPROF" report "$2" >report 2>&1
  check_eq "$1: report reads the trace" 0 "$?"
  check "$1: report warns with the cause" grep -q "warning: .*recording stopped early: $3" report
}

# 1. The disk fills: a 2 MB tmpfs holds a small part of the 6 M events.
mkdir full
if mount -t tmpfs -o size=2m tmpfs full 2>mount.err; then
  "$INCLPROF" record -o full/t ./busy >run.out 2>run.err; rc=$?
  stopped "disk full" full/t "cannot write the trace: No space left on device" 0
  check "disk full: record repeats the runtime's cause" \
    grep -q "^inclprof record: full/t/.*\.ipb: recording stopped early: cannot write the trace: No space left on device, after [0-9]* events" run.err
  umount full
else
  echo "# disk full: skipped, a tmpfs cannot be mounted here: $(cat mount.err)"
fi

# 2. The process's file-size limit: SIGXFSZ must never kill the program.
(ulimit -f 2000; INCLPROF_OUTPUT=fsz ./busy >run.out 2>run.err); rc=$?
stopped "ulimit -f" fsz "the trace reached the process's file size limit (ulimit -f)"

# 3. INCLPROF_MAX_SIZE: the file stays within the limit.
INCLPROF_MAX_SIZE=300K INCLPROF_OUTPUT=cap ./busy >run.out 2>run.err; rc=$?
stopped "INCLPROF_MAX_SIZE" cap "the trace reached its size limit (INCLPROF_MAX_SIZE=300K)"
size=$(stat -c %s cap/*.ipb)
check "INCLPROF_MAX_SIZE: file within 300K ($size bytes)" test "$size" -le 307200
INCLPROF_MAX_SIZE=lots INCLPROF_OUTPUT=badcap ./busy >run.out 2>run.err
check "INCLPROF_MAX_SIZE: a bad value is named, no limit" \
  grep -q "^inclprof: INCLPROF_MAX_SIZE='lots' is not a size above 4K (e.g. 500M); no size limit" run.err
check_eq "INCLPROF_MAX_SIZE: a bad value, the program unchanged" "$(cat expected.out)" "$(cat run.out)"

# 4. record with a directory it cannot use: says so, runs nothing, exits 2.
touch blocker
"$INCLPROF" record -o blocker/sub ./busy >run.out 2>run.err
check_eq "unusable directory: record exits 2" 2 "$?"
check_eq "unusable directory: the program did not run" "" "$(cat run.out)"
check_eq "unusable directory: one line naming the cause and the way out" \
  "inclprof record: cannot create the trace directory blocker/sub: Not a directory; choose another with -o DIR" \
  "$(cat run.err)"
# A directory whose parents are missing is made with them; one that cannot be
# used because the program cannot run is removed with the parents record made.
"$INCLPROF" record -o made/a/b ./busy >run.out 2>/dev/null
check_eq "missing parents: made, the program ran" "$(cat expected.out)" "$(cat run.out)"
check "missing parents: the trace is in made/a/b" sh -c 'ls made/a/b/*.ipb >/dev/null'
"$INCLPROF" record -o gone/a/b ./no-such-program >/dev/null 2>&1
check_eq "a program that cannot run: exit 127, no directory left behind" "127 no" "$? $(test -e gone && echo yes || echo no)"
# 5. A trace whose process is still running is not called killed.
cat >slow.c <<'SRC'
#include <unistd.h>
__attribute__((noinline)) static void nap(void) { sleep(3); }
int main(void) { nap(); return 0; }
SRC
cc_plugin slow slow.c -O2 || fail "build slow"
INCLPROF_OUTPUT=live ./slow & pid=$!
sleep 1
"$INCLPROF" info live >info 2>&1
check "still running: info says so" \
  grep -q "^trailer:      no trailer yet: pid $pid is still running (the trace is being written)" info
wait $pid
"$INCLPROF" info live >info 2>&1
check "finished: a clean trailer" grep -q "^trailer:      clean shutdown, exit reason: exit;" info
done_testing
