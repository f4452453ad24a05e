#!/bin/sh
# wait_page_faults.sh - Page faults never takes more than the faults can have
# taken (tests/programs/wait/fault_work.c): one probe-less interval holds 500
# page faults among about 10 ms of arithmetic.  Faults # is the number of
# pages touched; Page faults is that many times the calibrated cost of one
# fault (inclprof info), its bound, and far below the loop's CPU time, which the
# program measures itself; Other holds the arithmetic, which a twin loop
# without the pages times in the same run.  Short intervals holding one
# system call each (getppid through its call-site probes) still give all of
# their on-CPU kernel time to System calls.  20 000 faults in one interval
# overflow the thread's kernel-event buffer: info says so from the trace's
# index as from its records.
# timing: its checks compare times measured within one run, with margins
# from the twin loop's spread.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"

if cc_plugin fw "$INCLPROF_SRC/tests/programs/wait/fault_work.c" -O2; then ok "compile with the plugin"
else fail "compile with the plugin"; exit 1; fi

"$INCLPROF" record -o out --transitions kevents -- ./fw 500 1000 >truth.txt 2>rec.err
"$INCLPROF" info out >info.txt 2>&1
if ! grep -q 'transitions: *kevents' info.txt; then
  echo "ok - kevents unavailable here: $(sed -n 's/^ *why: //p' info.txt | head -1) # SKIP"
  done_testing
  exit
fi
"$INCLPROF" export -f csv -o fw.csv out 2>/dev/null
# col FUNCTION COLUMN
col() { csv_rows fw.csv function "$2" | awk -F'\t' -v f="$1" '$1 == f { print $2 }'; }
truth() { awk -v k="$1" -v i="${2:-3}" '$1 == "truth" && $2 == k { print $i }' truth.txt; }

cost=$(sed -n 's/^ *\([0-9.]*\) ns per minor page fault.*/\1/p' info.txt)
check "info: the calibrated cost of a page fault (${cost:-none} ns) is plausible" \
  awk -v c="${cost:-x}" 'BEGIN { exit !(c ~ /^[0-9.]+$/ && c >= 50 && c <= 100000) }'

pages=$(truth pages)
check_eq "fault_worker's Faults # = the pages touched" "$pages" "$(col fault_worker page_faults_inclusive)"
pf=$(col fault_worker page_fault_inclusive_ns)
# The interval has room for all of it: the faults take their whole bound
# (info rounds the cost to 0.01 ns: 0.005 ns per fault either way).
check "fault_worker's Page faults (${pf:-?} ns) = $pages x $cost ns" \
  awk -v v="${pf:-x}" -v n="$pages" -v c="${cost:-x}" 'BEGIN {
    exit !(v ~ /^[0-9]+$/ && v <= n * (c + 0.005) + 1 && v >= n * (c - 0.005) - 1) }'
cpu=$(truth worker_cpu)
check "fault_worker's Page faults (${pf:-?} ns) are under a quarter of its loop's CPU time ($cpu ns)" \
  awk -v v="${pf:-x}" -v c="$cpu" 'BEGIN { exit !(v ~ /^[0-9]+$/ && c > 0 && 4 * v < c) }'

# Other: the interval's on-CPU kernel time that no column takes, here the
# arithmetic's.  The twin's two runs give the spread; 10% more for the
# machine's load.
el=$(col fault_worker elapsed_inclusive_ns)
app=$(col fault_worker application_inclusive_ns)
known=$(($(col fault_worker offcpu_preempted_inclusive_ns) + $(col fault_worker offcpu_blocked_inclusive_ns) + $(col fault_worker syscall_inclusive_ns) + ${pf:-0}))
other=$((el - app - known))
t0=$(truth twin_cpu 3)
t1=$(truth twin_cpu 4)
check "fault_worker's Other ($other ns) holds the arithmetic (twin loop: $t0 and $t1 ns CPU), no more than the loop's CPU ($cpu ns)" \
  awk -v o="$other" -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN {
    lo = a < b ? a : b; hi = a < b ? b : a; m = hi - lo + 0.1 * hi
    exit !(lo > 0 && o >= lo - m && o <= c + m) }'

# One system call per interval: all of its on-CPU kernel time is System calls.
onkern=$(($(col getppid elapsed_inclusive_ns) - $(col getppid application_inclusive_ns) - $(col getppid offcpu_preempted_inclusive_ns) - $(col getppid offcpu_blocked_inclusive_ns)))
check_eq "getppid's Calls = the calls made" 1000 "$(col getppid calls)"
check_eq "getppid: its on-CPU kernel time is System calls" "$onkern" "$(col getppid syscall_inclusive_ns)"
check_eq "getppid: no Page faults" 0 "$(col getppid page_fault_inclusive_ns)"

"$INCLPROF" record -o burst --transitions kevents -- ./fw 20000 10 >/dev/null 2>&1
"$INCLPROF" info burst >burst_index.txt 2>&1
"$INCLPROF" info --scan burst >burst_scan.txt 2>&1
lost() { sed -n "s/^waits:.*$1 \([0-9]*\) times in .*/\1/p" "$2"; }
scan_lost=$(lost "not known" burst_scan.txt)
check "20 000 faults in one interval: info --scan counts the overflow (${scan_lost:-none})" \
  test "${scan_lost:-0}" -ge 1
check_eq "info from the index counts the overflows as the records do" \
  "${scan_lost:-none}" "$(lost "overflowed:" burst_index.txt)"
done_testing
