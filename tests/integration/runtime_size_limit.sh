#!/bin/sh
# runtime_size_limit.sh - inclprof record --max-size SIZE with the policies
# stop and ring.  ring: a steady two-thread load writes ~16 MB of trace into
# a 1M bound; the trace directory then holds the newest segment and the one
# before, together under 1M; info and report say the limit was reached, how
# many events were dropped and which window is kept; the kept window replays
# without damage (every event accounted for, no repaired exit, no lost batch);
# a main thread idle while the ring turned over does not stretch the wall
# time past the run's.
# stop: recording stops at the bound and info says when.  The program's output
# and exit status are those of a plain run.  Bad option values are refused
# with exact messages.
. "$INCLPROF_SRC/tests/lib.sh"
src="$INCLPROF_SRC/tests/programs/runtime/ring_load.c"
cc_plugin ring_load "$src" -O2 -pthread || { fail "build ring_load"; exit 1; }
plain=$(./ring_load 20000)
check_eq "plain run" "leaf calls: 4000000" "$plain"

# ---- ring ----------------------------------------------------------------
"$INCLPROF" record -o out --max-size 1M --max-size-policy ring -- ./ring_load 20000 >prog.out 2>rec.err
check_eq "ring: the program's exit status" 0 "$?"
check_eq "ring: the program's output" "$plain" "$(cat prog.out)"
f=$(ls out/*.ipb)
pid=$(basename "$f" .ipb)
check_eq "ring: the newest segment and the one before" "$pid.ipb $pid.ipb.prev" "$(ls out | grep -v '\.ipt$' | tr '\n' ' ' | sed 's/ $//')"
check_eq "ring: the function table beside them" 1 "$(ls out/*.ipt | wc -l)"
size=$(cat out/*.ipb out/*.ipb.prev | wc -c)
check "ring: both segments together under 1M ($size bytes)" test "$size" -lt 1048576
"$INCLPROF" info out >info 2>info.err
check_eq "ring: info exit status" 0 "$?"
total=$(sed -n 's/^trailer: .* \([0-9]*\) events written, 0 dropped$/\1/p' info)
dropped=$(sed -n 's/^size limit: .* the oldest \([0-9]*\) events .*/\1/p' info)
kept=$(sed -n 's/^events: *\([0-9]*\) in .*/\1/p' info)
check_eq "ring: every event written is kept or counted as dropped" "$total" "$((kept + dropped))"
check "ring: most events dropped ($dropped of $total)" test "$dropped" -gt $((total / 2))
check_eq "ring: record names the limit and the drop" \
  "inclprof record: out/$pid.ipb: the size limit (1.0 MB, policy ring) dropped the oldest $dropped of $total events; 'inclprof info' shows the time window kept
inclprof: 1 trace file written to out/ (status 0)" "$(cat rec.err)"
check "ring: info's size-limit line" grep -Eq \
  "^size limit:   1\.0 MB, policy ring: reached; the oldest $dropped events \([0-9.]+ MB\) were dropped; kept: from [0-9.]+ [mun]?s after the start to [0-9.]+ [mun]?s \(the end\)$" info
# Both threads start with the process, long before the window: each thread
# in the window (the worker may have ended before it) resumes from its state.
nthreads=$(sed -n 's/^threads: *\([0-9]*\)$/\1/p' info)
if [ "$nthreads" = 1 ]; then began="1 thread began before the kept window: its"
else began="$nthreads threads began before the kept window: their"; fi
check_eq "ring: every thread in the window resumed from its state at the window's start" \
  "ring:         $began calls then open are timed from its start and not counted as calls" \
  "$(grep '^ring: ' info)"
check_eq "ring: no exit repaired" "repairs:      0 exits reconciled" "$(grep '^repairs:' info)"
check "ring: no batch lost" grep -q "; 0 batches lost$" info
check_eq "ring: no damage" "damage:       none" "$(grep '^damage:' info)"
"$INCLPROF" report out >report 2>report.err
check_eq "ring: report exit status" 0 "$?"
check "ring: report warns" grep -Eq "^warning:      out/$pid.ipb: size limit 1\.0 MB, policy ring: reached; the oldest $dropped events" report
# run() is open on both threads for the whole window: 0 calls counted in it;
# each step() makes 100 leaf() calls, so the window's leaf calls are 100 per
# step, give or take the steps cut by the window's start on each thread.
run_calls=$(awk '$NF == "run" {print $1}' report)
step_calls=$(awk '$NF == "step" {print $1}' report)
leaf_calls=$(awk '$NF == "leaf" {print $1}' report)
check_eq "ring: run() began before the window: no call counted" 0 "$run_calls"
check "ring: leaf calls ($leaf_calls) = 100 x step calls ($step_calls) + at most 2 cut steps" \
  test "$leaf_calls" -ge $((100 * step_calls)) -a "$leaf_calls" -le $((100 * step_calls + 200))

# The newest segment alone (its .prev moved away) starts from its own thread
# states: it too replays without a repaired exit or a lost batch, and keeps
# fewer events, from a later start.
mkdir newest && mv "out/$pid.ipb" newest/
"$INCLPROF" info newest >info2 2>&1
check_eq "ring, newest segment alone: no exit repaired" "repairs:      0 exits reconciled" "$(grep '^repairs:' info2)"
check "ring, newest segment alone: no batch lost" grep -q "; 0 batches lost$" info2
check "ring, newest segment alone: info says the .prev is missing" grep -Eq \
  "^size limit:   1\.0 MB, policy ring: reached; .*\(the end\); the segment before this one \(\.prev\) is missing: its events are neither here nor counted as dropped$" info2
kept2=$(sed -n 's/^events: *\([0-9]*\) in .*/\1/p' info2)
check "ring, newest segment alone: fewer events ($kept2 < $kept)" test "$kept2" -lt "$kept"

# A main thread that wrote nothing before the ring turned over (it only
# waits for a worker) has no tick in the newest segment's thread state: it
# starts at its first event, so the wall time is the run's, within 5 % plus
# 50 ms of the program's own clock (not the machine's uptime).
cc_plugin ring_idle_main "$INCLPROF_SRC/tests/programs/runtime/ring_idle_main.c" -O2 -pthread || { fail "build ring_idle_main"; exit 1; }
"$INCLPROF" record -o idle --max-size 1M --max-size-policy ring -- ./ring_idle_main 20000000 >idle.out 2>/dev/null
check "ring, idle main: the ring turned over" test -f idle/*.ipb.prev
own=$(awk '$1 == "wall_ns" { print $2 }' idle.out)
wall=$("$INCLPROF" report idle 2>&1 | sed -n 's/.*wall time \([0-9.]*\) \([mu]*s\) by the clock.*/\1 \2/p' | head -1 |
  awk '{ print $1 * ($2 == "ms" ? 1e6 : $2 == "us" ? 1e3 : 1e9) }')
check "ring, idle main: the wall time is the run's (${wall:-none} ns, the program's own ${own:-none} ns)" \
  awk -v a="${wall:-0}" -v b="${own:-0}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.05 * b + 5e7) }'

# Crafted segments (ticks are ns, no probe cost): a thread resumed from its
# ThreadState, then one batch (seq 3, continuing next_seq 3).  f's frame was
# open before the window: 0 calls, 10 ns; nothing repaired, nothing lost.
cat >mk.py <<'PY'
import sys, zlib, struct
out = bytearray(b'INCLPROF\x01\x00\x00\x00')
hdr = '0a11' + '0801100018054801' + '51' + struct.pack('<d', 1e9).hex()
for h in [hdr, '520408011064', '1a050801220166', '22020807'] + sys.argv[2:] + ['4a00']:
    r = bytes.fromhex(h)
    out += bytes([len(r)]) + r + struct.pack('<I', zlib.crc32(r) & 0xffffffff)
open(sys.argv[1], 'wb').write(out)
PY
crafted() { # crafted DESCRIPTION EXPECTED-F-ROW THREADSTATE BATCH
  python3 mk.py c.ipb "$3" "$4"
  "$INCLPROF" report c.ipb >c.txt 2>&1
  check_eq "crafted, $1: f's row" "$2" "$(awk '$NF == "f" {print $1, $2, $3}' c.txt)"
  check "crafted, $1: nothing repaired" grep -q '^repairs:      0 exits reconciled' c.txt
  "$INCLPROF" info c.ipb >ci.txt 2>&1
  check "crafted, $1: no batch lost" grep -q '; 0 batches lost$' ci.txt
}
# open [ENTER f]; batch: EXIT f after 10 ticks
crafted "an open entry" "0 10 ns" 5a09080710031864220108 320c0807100318642201142a0109
# open [CALL f, ENTER f] (one frame); batch: EXIT f, RET f (absorbed by the exit)
crafted "a call-site frame joined by its entry" "0 10 ns" \
  5a0a08071003186422020a08 320e080710031864220214142a02090b
# expect_ret = f, nothing open; batch: RET f (absorbed, not an unmatched exit)
crafted "a return expected after an exit" "" 5a080807100318643801 320c0807100318642201142a010b
check_eq "crafted, a return expected after an exit: no unmatched exit" \
  "repairs:      0 exits reconciled (0 frames skipped by an exit or a longjmp, 0 open at thread end, 0 unmatched exits ignored); 0 clock steps back clamped" \
  "$(grep '^repairs:' c.txt)"

# ---- stop ----------------------------------------------------------------
rm -rf out
"$INCLPROF" record -o out --max-size 200K -- ./ring_load 20000 >prog.out 2>rec.err
check_eq "stop: the program's exit status" 0 "$?"
check_eq "stop: the program's output" "$plain" "$(cat prog.out)"
f=$(ls out/*.ipb)
size=$(wc -c <"$f")
check "stop: the trace under 200K ($size bytes)" test "$size" -le 204800
"$INCLPROF" info out >info 2>&1
n=$(sed -n 's/^size limit: .* after \([0-9]*\) events; .*/\1/p' info)
# (the limit is met while the program runs, which then runs on, or, when
# the writer lags, in the flush at its exit: nothing later)
check "stop: info's size-limit line" grep -Eq \
  "^size limit:   200\.0 KB, policy stop: reached; recording stopped [0-9.]+ [mun]?s after the start, after $n events; (the process ran on to [0-9.]+ [mun]?s: its last [0-9.]+ [mun]?s are not in the trace|nothing later is in the trace)$" info
check_eq "stop: record names the cause" \
  "inclprof record: $f: recording stopped early: the trace reached its size limit (INCLPROF_MAX_SIZE=200K), after $n events; the trace before that is complete" \
  "$(grep '^inclprof record:' rec.err)"

# ---- not reached ---------------------------------------------------------
rm -rf out
"$INCLPROF" record -o out --max-size 1G --max-size-policy ring -- ./ring_load 10 >/dev/null 2>&1
"$INCLPROF" info out >info 2>&1
check_eq "a limit not reached" "size limit:   1.00 GB, policy ring: not reached, nothing dropped" \
  "$(grep '^size limit:' info)"

# ---- bad values ----------------------------------------------------------
bad() { # bad DESCRIPTION EXPECTED-MESSAGE ARGS...
  d=$1 want=$2; shift 2
  "$INCLPROF" record -o out2 "$@" -- ./ring_load 1 >/dev/null 2>err
  check_eq "$d: exit status 2" 2 "$?"
  check_eq "$d: message" "$want" "$(cat err)"
}
bad "--max-size 12Q" "inclprof record: bad --max-size '12Q' (a size above 4K, e.g. 500M); try 'inclprof record --help'" --max-size 12Q
bad "--max-size-policy fifo" "inclprof record: bad --max-size-policy 'fifo' (stop or ring); try 'inclprof record --help'" --max-size 1M --max-size-policy fifo
bad "a policy without a size" "inclprof record: --max-size-policy needs --max-size SIZE; try 'inclprof record --help'" --max-size-policy ring
bad "ring below 1M" "inclprof record: --max-size 512K is below 1M, too small for --max-size-policy ring; try 'inclprof record --help'" --max-size 512K --max-size-policy ring
INCLPROF_OUTPUT=out3 INCLPROF_MAX_SIZE_POLICY=fifo ./ring_load 1 >prog.out 2>err
check_eq "env: a bad policy: the program's status" 0 "$?"
check_eq "env: a bad policy: one line" "inclprof: INCLPROF_MAX_SIZE_POLICY='fifo' is not stop or ring; using stop" "$(cat err)"
INCLPROF_OUTPUT=out3 INCLPROF_MAX_SIZE_POLICY=ring ./ring_load 1 >prog.out 2>err
check_eq "env: ring without a size: one line" "inclprof: INCLPROF_MAX_SIZE_POLICY=ring needs INCLPROF_MAX_SIZE (e.g. 500M); no size limit" "$(cat err)"
INCLPROF_OUTPUT=out3 INCLPROF_MAX_SIZE=100K INCLPROF_MAX_SIZE_POLICY=ring ./ring_load 1 >prog.out 2>err
check_eq "env: ring below 1M: one line" "inclprof: INCLPROF_MAX_SIZE='100K' is below 1M, too small for the ring policy (two segments, each holding whole batches); using stop" "$(cat err)"
done_testing
