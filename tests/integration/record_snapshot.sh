#!/bin/sh
# record_snapshot.sh - record --snapshot-if keeps exactly the windows around
# the slow calls of a long run, against the program's own measurement
# (tests/programs/latency/slow_requests.c: 21 000 requests, 10 of them slow,
# 6 to 10.5 ms, each timed by the program; a second thread works throughout):
# one snapshot per call over 5 ms (the slow ones, and on a busy machine
# fast ones that waited for a CPU that long), each holding that call whole
# with the program's duration within 2 %, the other thread throughout the
# window, and only the window (the call plus the margin on each side), while
# a 2 MB ring turns over; --snapshot-keep bounds the snapshots to the
# slowest N; the runtime's variables do the same for a program linked with
# it; a fork child keeps its own snapshots; a fatal signal right after a
# slow call keeps its snapshot; bad conditions are refused with one line and
# exit 2.
. "$INCLPROF_SRC/tests/lib.sh"
need python3
cc_plugin slow_requests -O2 -g -pthread "$INCLPROF_SRC/tests/programs/latency/slow_requests.c"

"$INCLPROF" record -o rec --max-size 2M --snapshot-if 'handle>5ms' --snapshot-keep 1000 ./slow_requests 21000 >own.txt 2>err.txt
rc=$?
check_eq "the program ran recorded" 0 "$rc"
check "record says how many snapshots it kept" grep -q "snapshots\? of slow calls kept in rec/snapshots/" err.txt
check_eq "the program made its 10 slow calls" 10 "$(awk '$1 == "slow" && $2 % 2000 == 1999' own.txt | wc -l)"
check "the ring turned over (the trace kept only its newest part)" test -f rec/*.ipb.prev

# Each snapshot, in call order, against the calls the program timed over
# 5 ms, in order (on a busy machine fast calls that waited that long for a
# CPU count too).  The call's time lies between the program's two measures,
# inside handle() and around the call (they differ when the thread waited
# for a CPU between a probe and a clock read): a call over 5.1 ms inside
# must have its snapshot, and its time must be within 2 % of that range; a
# call under 5.1 ms inside may have none (passed over).
"$INCLPROF" info rec >info.txt 2>&1
n=$(ls rec/snapshots | wc -l)
check "info lists the snapshots" grep -q "^snapshots: *$n in rec/snapshots/" info.txt
awk '/^snapshots:/ { on = 1; next } on && $2 == "handle" { print $1, $7, $8 }' info.txt >listed.txt
for name in $(cut -d' ' -f1 listed.txt); do
  d=rec/snapshots/$name
  # --raw: the call's time by the clock, as the bound is compared with it
  "$INCLPROF" report --raw --slowest handle --top 1 "$d" >"$name.slowest" 2>&1
  # --raw: the other thread's time keeps the runtime's holds of it (Gap records)
  "$INCLPROF" export --raw --format csv -o "$name.csv" "$d" 2>/dev/null
  "$INCLPROF" report --raw "$d" >"$name.report" 2>&1
done
python3 - >check.txt <<'PY'
import csv, re
def ns(v, u): return float(v) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[u]
own = [tuple(int(v) for v in l.split()[1:4]) for l in open("own.txt") if l.startswith("slow ")]
own = [c for c in own if c[1] > 4.9e6]  # (i, around, inside)
fits = lambda c, t: c[2] * 0.98 <= t <= c[1] * 1.02
tight = lambda c, t: abs(t - c[2]) <= 0.02 * c[2]  # the usual case: no wait outside the body
listed = [l.split() for l in open("listed.txt")]
for name in [r[0] for r in sorted(listed, key=lambda r: ns(r[1], r[2]))]:  # in call order
    m = re.search(r"^#1 +([0-9.]+) (ns|us|ms|s) Elapsed", open(name + ".slowest").read(), re.M)
    took = ns(*m.groups()) if m else 0
    while own and own[0][2] < 5.1e6 and (not fits(own[0], took) or (
            len(own) > 1 and tight(own[1], took) and not tight(own[0], took))):
        own.pop(0)  # not over the bound as the probes saw it: no snapshot
    i, around, inside = own.pop(0) if own else (-1, 0, 0)
    rows = list(csv.DictReader(open(name + ".csv")))
    calls = {r["function"]: int(r["calls"]) for r in rows}
    handle = [r for r in rows if r["function"] == "handle"]
    w = re.search(r"wall time ([0-9.]+) (ns|us|ms|s)[ ;]", open(name + ".report").read())
    wall = ns(*w.groups()) if w else 0
    print("%s call %d: snapshot %d ns, program %d ns inside, %d around" % (name, i, took, inside, around))
    print(" within2", int(inside > 0 and fits((i, around, inside), took)))
    print(" whole", int(bool(handle) and int(handle[0]["max_ns"]) > 5e6 and
                        (i % 2000 != 1999 or calls.get("slow_part") == 1)))
    worker = [int(r["elapsed_inclusive_ns"]) for r in rows if r["function"] == "worker"]
    print(" work", int(bool(worker) and abs(worker[0] - wall) <= 0.02 * wall))
    print(" window", int(abs(wall - (took + 2e6)) <= 0.02 * (took + 2e6)))
print("left", sum(1 for c in own if c[2] >= 5.1e6))
PY
check_eq "every snapshot is a call the program timed over 5 ms, within 2 % ($n snapshots)" "" "$(awk '/^[^ ]/ { prev = $0 } / within2 0/ { print prev }' check.txt)"
check_eq "... each holds that call whole (with its slow_part for the slow ones)" "" "$(awk '/^[^ ]/ { prev = $0 } / whole 0/ { print prev }' check.txt)"
check_eq "... and the other thread throughout the window (its worker() open from start to end)" "" "$(awk '/^[^ ]/ { prev = $0 } / work 0/ { print prev }' check.txt)"
check_eq "... and only the window: the call and 1 ms on each side" "" "$(awk '/^[^ ]/ { prev = $0 } / window 0/ { print prev }' check.txt)"
check_eq "no call over 5 ms is without its snapshot" "left 0" "$(tail -1 check.txt)"
check "each snapshot was checked" test "$(grep -c ' within2 ' check.txt)" = "$n"
check "the ring's own trace still reads" sh -c '"$INCLPROF" report rec >/dev/null 2>&1'

# --snapshot-keep 3 bounds what is kept: the three slowest (the last three
# slow calls sleep longest).
"$INCLPROF" record -o keep --max-size 2M --snapshot-if 'handle>5ms' --snapshot-keep 3 ./slow_requests >own3.txt 2>/dev/null
check_eq "--snapshot-keep 3: three kept" 3 "$(ls keep/snapshots | wc -l)"
"$INCLPROF" info keep >info3.txt 2>&1
kept=$(awk '/^snapshots:/ { on = 1; next } on && $2 == "handle" { print $3 * 1e6 }' info3.txt | sort -n | head -1)
third=$(awk '$1 == "slow" && $4 > 5000000 { print $4 }' own3.txt | sort -n | tail -3 | head -1)
check "... the slowest three (the least kept $kept ns, the program's third slowest inside $third ns)" \
  awk -v a="$kept" -v b="$third" 'BEGIN { exit !(a >= b * 0.98) }'

# The runtime's own variables, for a program linked with the runtime and run
# without record: the slow calls' snapshots, each window the call and 3 ms
# on each side (INCLPROF_SNAPSHOT_MARGIN); no ring size given: 64M.
INCLPROF_OUTPUT=env INCLPROF_SNAPSHOT_IF='slow_part>5ms' INCLPROF_SNAPSHOT_MARGIN=3ms \
  INCLPROF_SNAPSHOT_KEEP=1000 ./slow_requests 21000 4000 >own_env.txt 2>env_err.txt
check_eq "INCLPROF_SNAPSHOT_IF: one snapshot per slow_part call" 5 "$(ls env/snapshots 2>/dev/null | wc -l)"
check_eq "... and nothing said on the program's stderr" "" "$(cat env_err.txt)"
"$INCLPROF" info env >info_env.txt 2>&1
check "... the ring of 64M by default" grep -q "^size limit: *64.0 MB, policy ring" info_env.txt
bad_windows=
for d in env/snapshots/*; do
  took=$("$INCLPROF" report --raw --slowest slow_part --top 1 "$d" 2>&1 | awk '/^#1 / { print $2 * ($3 == "ms" ? 1e6 : $3 == "us" ? 1e3 : 1e9) }')
  wall=$("$INCLPROF" report --raw "$d" 2>&1 | sed -n 's/.*wall time \([0-9.]*\) \([mu]*s\)[ ;].*/\1 \2/p' | awk '{ print $1 * ($2 == "ms" ? 1e6 : $2 == "us" ? 1e3 : 1e9) }')
  awk -v t="${took:-0}" -v w="${wall:-0}" 'BEGIN { e = t + 6e6; exit !(w >= e * 0.98 && w <= e * 1.02) }' ||
    bad_windows="$bad_windows $d ($wall ns for a call of $took ns)"
done
check_eq "... each window the call and INCLPROF_SNAPSHOT_MARGIN=3ms on each side" "" "$bad_windows"

# A fork child keeps its own ring and its own snapshots: one per call of its
# own over 5 ms, as for the parent, and both traces end cleanly.
cc_plugin fork_requests -O2 -g "$INCLPROF_SRC/tests/programs/latency/fork_requests.c"
"$INCLPROF" record -o forked --snapshot-if 'handle>5ms' ./fork_requests >own_fork.txt 2>/dev/null
check_eq "both processes ran" 2 "$(wc -l <own_fork.txt)"
while read -r pid over; do
  check_eq "process $pid: one snapshot per call over 5 ms" "$over" "$(ls forked/snapshots | grep -c "^$pid-")"
  check "process $pid: its trace ends cleanly" sh -c '"$INCLPROF" info "forked/$1.ipb" 2>&1 | grep -q "^trailer: *clean shutdown"' _ "$pid"
done <own_fork.txt

# Bad conditions: one line naming the cause, exit 2, nothing run.
for c in 'nosuch>5ms:./slow_requests defines no function named .nosuch.' 'handle>abc:.abc. in .handle>abc. is not a duration' \
  'handle>5:the duration .5. in .handle>5. has no unit' 'handle:.handle. is not FUNCTION>DURATION'; do
  cond=${c%%:*} why=${c#*:}
  msg=$("$INCLPROF" record -o bad --snapshot-if "$cond" ./slow_requests 2>&1 >/dev/null); rc=$?
  check_eq "--snapshot-if '$cond': exit 2" 2 "$rc"
  check "... one line naming the cause" sh -c 'test "$(echo "$1" | wc -l)" = 1 && echo "$1" | grep -q "^inclprof record: bad --snapshot-if: $2"' _ "$msg" "$why"
done
check "... and the program did not run" test ! -e bad/snapshots
# A fatal signal right after a slow call, before its window's margin has
# passed: the snapshot is written as the trace ends, the call in it as the
# program timed it, and the program dies of its own signal.
cc_plugin crash_after_slow -O2 -g "$INCLPROF_SRC/tests/programs/latency/crash_after_slow.c"
for sig in segv:139 abrt:134; do
  name=${sig%:*} want=${sig#*:}
  "$INCLPROF" record -o "crash-$name" --snapshot-if 'slow>5ms' ./crash_after_slow "$name" >"own-$name.txt" 2>"err-$name.txt"
  check_eq "SIG$(echo "$name" | tr a-z A-Z): the program dies of its signal under record (status $want)" "$want" "$?"
  check_eq "... one snapshot, the slow call's" 1 "$(ls "crash-$name/snapshots" 2>/dev/null | wc -l)"
  took=$("$INCLPROF" report --raw --slowest slow --top 1 "crash-$name"/snapshots/* 2>&1 |
    awk '/^#1 / { print $2 * ($3 == "ms" ? 1e6 : $3 == "us" ? 1e3 : 1e9) }')
  own=$(awk '$1 == "slow" { print $2 }' "own-$name.txt")
  check "... its time within 2 % of the program's own (${took:-none} ns, the program's $own ns)" \
    awk -v a="${took:-0}" -v b="${own:-0}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.02 * b) }'
done
done_testing
