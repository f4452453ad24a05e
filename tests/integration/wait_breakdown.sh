#!/bin/sh
# wait_breakdown.sh - each wait column against ground truth measured apart
# from inclprof in the same run (tests/programs/wait/ground_truth.c): a thread
# blocked on a condition variable (Off-CPU blocked = the wall time of the
# wait, within 5%), a thread sleeping in nanosleep (likewise), a thread
# preempted by three busy threads per CPU (Off-CPU preempted = its schedstat
# run_delay over the call, within 2%, less what the two readings' own tail
# and head hold), the same with probes a few ns apart (and its Application
# time at most its CPU time), a thread faulting 2000 fresh pages (Page
# faults: the count exactly, and the call's on-CPU Non-Application time as
# their time, up to their calibrated cost), a thread sleeping after a burst of page faults that wraps the
# kevents ring (the sleep is still Off-CPU blocked), a reader thread blocking
# in thousands of read() calls between two flushes (their time is Off-CPU
# blocked and system calls, none lost).
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"
P="$INCLPROF_SRC/tests/programs/wait"

if cc_plugin gt "$P/ground_truth.c" -O2 -pthread; then ok "compile with the plugin"
else fail "compile with the plugin"; exit 1; fi

# run MODE ARG: records one run; prints the program's truth value
run() {
  rm -rf "out-$1"
  "$INCLPROF" record -o "out-$1" --transitions kevents -- ./gt "$1" "$2" >"truth-$1.txt" 2>"rec-$1.err"
  "$INCLPROF" export -f csv -o "$1.csv" "out-$1" 2>/dev/null
  awk '$1 == "truth" { print $3 }' "truth-$1.txt"
}
# col MODE FUNCTION COLUMN
col() { csv_rows "$1.csv" function "$3" | awk -F'\t' -v f="$2" '$0 ~ "^" f "\t" { print $2 }'; }
# within5 DESC TRUTH VALUE: |VALUE - TRUTH| <= 5% of TRUTH
within5() {
  if awk -v t="$2" -v v="$3" 'BEGIN { d = v - t; if (d < 0) d = -d; exit !(t > 0 && d <= 0.05 * t) }'; then
    ok "$1 ($3 ns, truth $2 ns)"
  else fail "$1: $3 ns is not within 5% of $2 ns"; fi
}

# bracketed DESC TRUTH VALUE READINGS [BLOCKED]: a run_delay read by two
# schedstat readings around a call.  The call's Off-CPU preempted (VALUE)
# misses only what fell in the readings' own tail and head, which their row
# shows (READINGS), and the wait for a CPU that ends a sleep, which run_delay
# counts from the wake-up and the switch records show inside the call's
# Off-CPU blocked (BLOCKED): VALUE <= TRUTH <= VALUE + READINGS + BLOCKED,
# each within 2% of TRUTH.
bracketed() {
  if awk -v t="$2" -v v="$3" -v r="${4:-0}" -v b="${5:-0}" 'BEGIN { m = 0.02 * t
       exit !(t > 0 && v != "" && v <= t + m && t <= v + r + b + m) }'; then
    ok "$1 ($3 ns, truth $2 ns, readings $4 ns${5:+, blocked $5 ns})"
  else fail "$1: $3 ns is not within 2% of $2 ns less the readings' $4 ns${5:+ and the blocked $5 ns}"; fi
}

truth=$(run blocked 300)
if ! "$INCLPROF" info out-blocked 2>/dev/null | grep -q 'transitions: *kevents'; then
  echo "ok - kevents unavailable here: $("$INCLPROF" info out-blocked 2>/dev/null | sed -n 's/^ *why: //p' | head -1) # SKIP"
  done_testing
  exit
fi
within5 "condition variable: cond_waiter's Off-CPU blocked = the wait" "$truth" \
  "$(col blocked cond_waiter offcpu_blocked_inclusive_ns)"
check_eq "condition variable: the wait is not taken for preemption" 0 \
  "$(col blocked pthread_cond_wait offcpu_preempted_inclusive_ns | awk -v t="$truth" '{ print ($1 > 0.05 * t) }')"

truth=$(run sleep 200)
within5 "nanosleep: sleeper's Off-CPU blocked = the sleep" "$truth" \
  "$(col sleep sleeper offcpu_blocked_inclusive_ns)"

truth=$(run preempt 2000)
check "preemption: the run waited for a CPU (run_delay $truth ns)" test "$truth" -gt 50000000
bracketed "preemption: spinner's Off-CPU preempted = schedstat run_delay" "$truth" \
  "$(col preempt spinner offcpu_preempted_inclusive_ns)" \
  "$(col preempt run_delay offcpu_preempted_inclusive_ns)"
# Preemption is never taken for blocking: a spinning thread blocks only when
# a page fault sleeps (a code page the kernel reclaimed is read back in; the
# test VMs reclaim cold pages), far less than the 1-2 s it is preempted.
blocked=$(col preempt spinner offcpu_blocked_inclusive_ns)
check "preemption: a spinning thread blocks under 2% of its preemption (${blocked:-?} ns)" \
  awk -v b="${blocked:-x}" -v t="$truth" 'BEGIN { exit !(b ~ /^[0-9]+$/ && b * 50 < t) }'

# Probes a few ns apart, preempted hundreds of times: a preemption between a
# probe's load of the ring's head and its clock read is still Non-Application
# (the records place it). Application time never exceeds the CPU time the
# thread measured itself (before: 145-191 ms of Application against 22-42 ms
# of CPU in 2 runs of 3 on the loaded VM), and Off-CPU preempted is the
# run_delay.
truth=$(run dense 500)
app=$(col dense dense_spinner application_inclusive_ns)
check "dense probes: dense_spinner's Application Inclusive (${app:-?} ns) <= its CPU time ($truth ns)" \
  awk -v a="${app:-x}" -v c="$truth" 'BEGIN { exit !(a ~ /^[0-9]+$/ && c > 0 && a <= c) }'
# A preemption inside a flush (the runtime encoding a buffer itself, or
# handing it to its writer) is kept as the program's: the flush's Gap leaves
# its time out (before: 1-14 % short in about 1 run in 5 under load, exactly
# the preemption the Gaps removed).  The one wait the records cannot split is
# a sleep's end: the runtime's own frame write can sleep on a lock a
# preempted thread holds (the index's, while that thread registers; the
# file's), and run_delay counts the wait for a CPU after the wake-up that the
# switch records hold as blocked (beside two busy loops, 5 runs of 50 slept
# 13-252 ms there and read 0.3-22.9 % short; the other 45 within 0.15 %).
dtruth=$(awk '$1 == "delay" { print $3 }' truth-dense.txt)
bracketed "dense probes: dense_spinner's Off-CPU preempted = schedstat run_delay" "$dtruth" \
  "$(col dense dense_spinner offcpu_preempted_inclusive_ns)" \
  "$(col dense run_delay offcpu_preempted_inclusive_ns)" \
  "$(col dense dense_spinner offcpu_blocked_inclusive_ns)"

truth=$(run faults 2000)
check_eq "page faults: toucher's count is exact" "$truth" "$(col faults toucher page_faults_inclusive)"
el=$(col faults toucher elapsed_inclusive_ns)
nonapp=$(($(col faults toucher elapsed_inclusive_ns) - $(col faults toucher application_inclusive_ns)))
offcpu=$(($(col faults toucher offcpu_preempted_inclusive_ns) + $(col faults toucher offcpu_blocked_inclusive_ns)))
# No system call: the call's on-CPU kernel time is the faults', up to their
# calibrated cost each (info rounds it to 0.01 ns).  Each of toucher's two
# calls is bounded apart: the one-page call's fault, the first in the
# mapping, can take longer than the bound while the other call's take less,
# so the sum may stay a little under both (5 %).
cost=$("$INCLPROF" info out-faults 2>/dev/null | sed -n 's/^ *\([0-9.]*\) ns per minor page fault.*/\1/p')
pf=$(col faults toucher page_fault_inclusive_ns)
check "page faults: toucher's Page faults (${pf:-?} ns) = its on-CPU kernel time ($((nonapp - offcpu)) ns, $el ns elapsed) or $truth x ${cost:-?} ns, the smaller" \
  awk -v v="${pf:-x}" -v k="$((nonapp - offcpu))" -v n="$truth" -v c="${cost:-x}" 'BEGIN {
    lo = n * (c - 0.005); lo = lo < k ? lo : k; hi = n * (c + 0.005) + 1
    exit !(v ~ /^[0-9]+$/ && c ~ /^[0-9.]+$/ && v <= k && v <= hi && v >= 0.95 * lo) }'

# A burst of page faults inside one memset wraps the ring: that interval's
# records are lost (counted), the sleep after it keeps its breakdown.
truth=$(run burst 64)
within5 "fault burst, then a sleep: napper's Off-CPU blocked = the sleep" "$truth" \
  "$(col burst napper offcpu_blocked_inclusive_ns)"
check "fault burst: info counts the interval whose records were lost" sh -c \
  "'$INCLPROF' info --scan out-burst | grep -q 'waits: .* not known [1-9][0-9]* times'"
# A reader thread: one read() per byte, blocking each time - thousands of
# records between two flushes, read from the ring by the probes around read().
truth=$(run reader 4000)
explained=$(($(col reader read offcpu_blocked_inclusive_ns) + $(col reader read syscall_inclusive_ns)))
within5 "reader: read's Off-CPU blocked + system calls = the time in read()" "$truth" "$explained"
check_eq "reader: no record was lost" "" "$("$INCLPROF" report out-reader 2>&1 | grep 'records were lost')"

check "info: the records were kept, none lost" sh -c "'$INCLPROF' info --scan out-blocked | grep -q 'waits: .* not known 0 times'"
"$INCLPROF" report --wait --by thread out-blocked >report.txt 2>&1
check "report --wait: the breakdown's columns" grep -q 'Non-App Incl .*Preempted .*Blocked .*Syscalls .*Faults' report.txt

# Without kevents there are no records: the columns are 0 and report says so.
"$INCLPROF" record -o out-none --transitions none -- ./gt sleep 10 >/dev/null 2>&1
"$INCLPROF" export -f csv -o none.csv out-none 2>/dev/null
check_eq "transitions none: sleeper's Off-CPU blocked is 0" 0 "$(col none sleeper offcpu_blocked_inclusive_ns)"
check "transitions none: report --wait says why the columns are 0" sh -c \
  "'$INCLPROF' report --wait out-none | grep -q 'no kernel-event records'"
done_testing
