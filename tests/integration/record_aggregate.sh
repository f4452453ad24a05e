#!/bin/sh
# record_aggregate.sh - `inclprof record --aggregate` side by side with the
# trace mode on one deterministic C++ program (tests/programs/runtime/
# aggregate_paths.cc: three threads, recursion, an exception thrown through
# three frames): every function's calls in the profile's CSV are the
# program's own counts and the trace's, exactly; the Application
# Exclusive time of the functions that only compute, the median of five
# profiles within the range of five traces recorded in turn with one
# probe-cost calibration, widened by its spread and 10 % (the same values within 1 ns per
# interval are checked on one event stream by
# tests/unit/test_runtime_aggregate.c); the same with two threads pinned to
# one CPU that preempt each other inside their calls and probes
# (tests/programs/runtime/preempted_calls.c), whose loops' Application time
# stays under the CPU time the program measured for them; the profile's
# size is bounded by
# its call paths and their histograms' buckets, not by the calls (four
# times the rounds: the same paths, both profiles under 100 KB while the
# histograms' tails fill, where the trace grows about four times); report, CSV, pprof, callgrind,
# folded, HTML, diff and suggest read it; the timeline exports refuse it
# with exit 2, the lock table's with exit 1; --interval writes a profile per interval whose calls sum to
# the program's count, each saying which span of time it covers, with that
# span as its wall time (report) and duration (pprof).
. "$INCLPROF_SRC/tests/lib.sh"
need python3 g++

check "compile with the plugin" g++ -O1 -fplugin="$INCLPROF_PLUGIN" \
  "$INCLPROF_SRC/tests/programs/runtime/aggregate_paths.cc" -o paths -pthread
# record_runs PROGRAM ARGS -- RUN...: each run recorded into its directory
# (a*, pa*: --aggregate), all with the first run's probe-cost calibration
# (docs/runtime.md: cached per output directory), so that every run
# removes the same probe cost: measured at each start-up, it differs by a
# few ns per probe from one to the next, which moved fib's Application
# Exclusive time between 0.6 and 3.3 ms from run to run at a load average
# of 18 (0.7 to 1.3 ms with one calibration).
record_runs() {
  prog=$1; shift; args=
  while [ "$1" != -- ]; do args="$args $1"; shift; done; shift
  first=$1
  for r in "$@"; do
    case $r in a* | pa*) agg=--aggregate ;; *) agg= ;; esac
    if [ "$r" != "$first" ]; then mkdir -p "$r" && cp "$first"/.calibration-* "$r"/; fi
    check "record $r $agg" sh -c "'$INCLPROF' record $agg -o $r -- $prog$args > $r.out"
    check "export csv $r" "$INCLPROF" export --format csv -o $r.csv $r
  done
}
record_runs ./paths -- t1 a1 t2 a2 t3 a3 t4 a4 t5 a5
check_eq "the program counts the same calls each run" "$(cat t1.out)" "$(cat a5.out)"

# compare.py: per function of the program, calls equal to its own count in
# every CSV; the Application Exclusive time of the functions that only
# compute, the profiles' median beside the traces' (the runs interleaved):
# within the traces' range widened by their spread and 10 % of their median.
cat > compare.py <<'PY'
import csv, statistics, sys
own = {k: v for k, v in (kv.split("=") for kv in open(sys.argv[1] + ".out").read().split()) if not k.endswith("_ns")}
def rows(name):
    return {r["function"].split("(")[0]: r for r in csv.DictReader(open(name))}
runs = {n: rows(n + ".csv") for n in sys.argv[1:]}
fail = 0
for fn, calls in sorted(own.items()):
    for n, t in runs.items():
        got = t.get(fn, {}).get("calls")
        if got != calls:
            print(f"FAIL - {n}: {fn} has {got} calls, the program counted {calls}"); fail += 1
    if not fail:
        print(f"ok - {fn}: {calls} calls in every trace and profile")
def app(fn, kind):
    return [int(t[fn]["application_exclusive_ns"]) for n, t in runs.items() if n[-2] == kind]
for fn in ("work", "fib", "leaf"):
    if fn not in own:
        continue
    tr, pr = app(fn, "t"), app(fn, "a")
    mt, mp = statistics.median(tr), statistics.median(pr)
    margin = max(tr) - min(tr) + mt / 10
    ok = min(tr) - margin <= mp <= max(tr) + margin
    if not ok: fail += 1
    print(f"{'ok' if ok else 'FAIL'} - {fn}: Application Exclusive {mp / 1e6:.2f} ms (profiles' median)"
          f" within the traces' {min(tr) / 1e6:.2f}-{max(tr) / 1e6:.2f} ms and {margin / 1e6:.2f} ms;"
          f" traces {[round(v / 1e6, 2) for v in tr]}, profiles {[round(v / 1e6, 2) for v in pr]}")
PY
python3 compare.py t1 t2 t3 t4 t5 a1 a2 a3 a4 a5 || fail "compare.py ended early"

# Two threads pinned to one CPU, preempted again and again inside their
# calls and probes: in each run (five of each mode, interleaved) the
# Application Inclusive time of the loops (spin) stays under the CPU time
# the program measured for them, and the profiles' leaf beside the traces'
# as above.
check "compile the preempted program" cc_plugin preempted "$INCLPROF_SRC/tests/programs/runtime/preempted_calls.c" -O1 -pthread
record_runs ./preempted 500 -- pt1 pa1 pt2 pa2 pt3 pa3 pt4 pa4 pt5 pa5
cat > cpu.py <<'PY'
import csv, sys
for n in sys.argv[1:]:
    own = dict(kv.split("=") for kv in open(n + ".out").read().split())
    spin = [r for r in csv.DictReader(open(n + ".csv")) if r["function"] == "spin"][0]
    app, el, cpu = int(spin["application_inclusive_ns"]), int(spin["elapsed_inclusive_ns"]), int(own["cpu_ns"])
    ok = app < cpu
    print(f"{'ok' if ok else 'FAIL'} - {n}: spin's Application Inclusive {app / 1e6:.1f} ms under the"
          f" loops' CPU time {cpu / 1e6:.1f} ms (Elapsed {el / 1e6:.1f} ms)")
PY
python3 cpu.py pt1 pa1 pt2 pa2 pt3 pa3 pt4 pa4 pt5 pa5 || fail "cpu.py ended early"
python3 compare.py pt1 pt2 pt3 pt4 pt5 pa1 pa2 pa3 pa4 pa5 || fail "compare.py ended early (preempted)"

s1=$(cat a1/*.ipb | wc -c); t1=$(cat t1/*.ipb | wc -c)
check "a longer run (4 x the rounds) under --aggregate" sh -c "'$INCLPROF' record --aggregate -o along -- ./paths 800 > along.out"
check "... and traced" sh -c "'$INCLPROF' record -o tlong -- ./paths 800 > tlong.out"
s4=$(cat along/*.ipb | wc -c); t4=$(cat tlong/*.ipb | wc -c)
check "the profile is a few KB ($s1 bytes)" test "$s1" -lt 102400
check "... and stays so with 4 x the calls ($s4 bytes)" test "$s4" -lt 102400
check_eq "... with the same call paths" "$("$INCLPROF" report --tree a1 | grep -c '[a-z](')" \
  "$("$INCLPROF" report --tree along | grep -c '[a-z](')"
check "the trace does ($t1 -> $t4 bytes)" test "$t4" -ge $((t1 * 3))

# --interval: one profile per interval, what each added; their calls sum to
# the program's own count.
check "record --aggregate --interval 20ms (the program runs 80-300 ms)" sh -c "'$INCLPROF' record --aggregate --interval 20ms -o iv -- ./paths 800 > iv.out"
n=$(ls iv/*.intervals/*.ipb | wc -l)
check "several interval files ($n)" test "$n" -ge 2
for f in iv/*.intervals/*.ipb; do "$INCLPROF" export --format csv -o "$f.csv" "$f" 2>/dev/null || fail "export $f"; done
cat > sum.py <<'PY'
import csv, glob
own = dict(kv.split("=") for kv in open("iv.out").read().split())
tot = {}
for name in glob.glob("iv/*.intervals/*.ipb.csv"):
    for r in csv.DictReader(open(name)):
        fn = r["function"].split("(")[0]
        tot[fn] = tot.get(fn, 0) + int(r["calls"])
for fn, calls in sorted(own.items()):
    ok = tot.get(fn) == int(calls)
    print(f"{'ok' if ok else 'FAIL'} - intervals: {fn} {tot.get(fn)} calls in all, the program counted {calls}")
PY
python3 sum.py
# threads that end between intervals and snapshots, buffers folded by the
# writer: the whole profile and the intervals' sum both hold every call
check "compile the threads program" cc_plugin threads "$INCLPROF_SRC/tests/programs/runtime/aggregate_threads.c" -O1 -pthread
check "record it with --interval 50ms --flush-every 30ms" sh -c "'$INCLPROF' record --aggregate --interval 50ms --flush-every 30ms -o th -- ./threads > th.out"
"$INCLPROF" export --format csv -o th.csv th 2>/dev/null || fail "export th"
for f in th/*.intervals/*.ipb; do "$INCLPROF" export --format csv -o "$f.csv" "$f" 2>/dev/null || fail "export $f"; done
cat > th.py <<'PY'
import csv, glob
own = dict(kv.split("=") for kv in open("th.out").read().split())
whole = {r["function"]: int(r["calls"]) for r in csv.DictReader(open("th.csv"))}
parts = {}
for name in glob.glob("th/*.intervals/*.ipb.csv"):
    for r in csv.DictReader(open(name)):
        parts[r["function"]] = parts.get(r["function"], 0) + int(r["calls"])
for fn, calls in sorted(own.items()):
    for what, got in (("the profile", whole.get(fn)), ("the intervals", parts.get(fn))):
        ok = got == int(calls)
        print(f"{'ok' if ok else 'FAIL'} - threads: {fn} {got} calls in {what}, the program counted {calls}")
PY
python3 th.py

# Each interval's file says which time it covers, and its wall time is that
# interval's: a program steady on one thread for 1.7 s with --interval
# 500ms gives files 0 to 2 of about 500 ms each (within 20 %), each
# beginning where the one before ended; the report's wall time and the
# pprof's duration are that span (within 1 ms), and the thread's Elapsed
# time in it and the files before it is at most the time to its end (not a
# share of the time since the process began in each file).
check "compile the steady program" cc_plugin steady "$INCLPROF_SRC/tests/programs/runtime/steady_seconds.c" -O1
check "record it with --interval 500ms" sh -c "'$INCLPROF' record --aggregate --interval 500ms -o st -- ./steady 1.7 > st.out 2>/dev/null"
for k in 0 1 2; do
  f=$(ls st/*.intervals/00000$k.ipb)
  "$INCLPROF" info "$f" >"st$k.info" 2>&1
  "$INCLPROF" report "$f" >"st$k.report" 2>&1
  "$INCLPROF" export --format pprof -o "st$k.pb.gz" "$f" 2>/dev/null || fail "export pprof $f"
  "$INCLPROF" export --format csv -o "st$k.csv" "$f" 2>/dev/null || fail "export csv $f"
done
cat > pb.py <<'PY'
import gzip
def ns(v, u): return float(v) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[u]
def field(path, want):  # a varint field of a pprof Profile (9 time_nanos, 10 duration_nanos)
    b, i = gzip.open(path).read(), 0
    def varint():
        nonlocal i
        v = s = 0
        while True:
            c = b[i]; i += 1; v |= (c & 127) << s; s += 7
            if c < 128: return v
    while i < len(b):
        key = varint(); field, wire = key >> 3, key & 7
        if wire == 0:
            v = varint()
            if field == want: return v
        elif wire == 2:
            n = varint(); i += n
        elif wire == 1: i += 8
        elif wire == 5: i += 4
    return None
PY
cat > st.py <<'PY'
import csv, re
exec(open("pb.py").read())
def duration_nanos(path): return field(path, 10)
to_prev = cum = 0.0
for k in range(3):
    m = re.search(r"^interval: +%d: from ([0-9.]+) (ns|us|ms|s) to ([0-9.]+) (ns|us|ms|s) after the process's start \(([0-9.]+) (ns|us|ms|s)\)$" % k,
                  open("st%d.info" % k).read(), re.M)
    if not m:
        print("FAIL - interval %d: info gives no 'interval:' line" % k); continue
    a, z, d = ns(*m.group(1, 2)), ns(*m.group(3, 4)), ns(*m.group(5, 6))
    print("%s - interval %d: info: from %.0f to %.0f ns, %.0f ns: about 500 ms" % ("ok" if abs(d - 5e8) <= 1e8 else "FAIL", k, a, z, d))
    print("%s - interval %d: begins where the one before ended (%.0f ns)" % ("ok" if abs(a - to_prev) <= 1e4 else "FAIL", k, to_prev))
    to_prev = z
    r = open("st%d.report" % k).read()
    h = re.search(r"^interval: +%d: from" % k, r, re.M)
    print("%s - interval %d: the report's header says its span" % ("ok" if h else "FAIL", k))
    w = re.search(r"wall time ([0-9.]+) (ns|us|ms|s) by the clock", r)
    wall = ns(*w.groups()) if w else 0
    print("%s - interval %d: the report's wall time is the interval's (%.0f ns)" % ("ok" if abs(wall - d) <= 1e6 else "FAIL", k, wall))
    p = duration_nanos("st%d.pb.gz" % k) or 0
    print("%s - interval %d: the pprof's duration is the interval's (%d ns)" % ("ok" if abs(p - d) <= 1e6 else "FAIL", k, p))
    el = sum(int(x["elapsed_exclusive_ns"]) for x in csv.DictReader(open("st%d.csv" % k)))
    cum += el
    # The files so far together: a thread whose events a busy machine kept
    # out of one file (it reads 0 there) brings them to the next.
    print("%s - interval %d: the thread's Elapsed time, %d ns (%.1f %% of the span), with the files before it at most the time to its end (%.1f %%)" % ("ok" if cum <= z * 1.01 + 1e6 else "FAIL", k, el, 100 * el / d, 100 * cum / z))
PY
python3 st.py

# A thread blocked in one call across intervals: tests/programs/runtime/nap_seconds.c
# sleeps 2.5 s in nap() with --interval 500ms. Each file but the last reads
# about its span in nap's Elapsed time (within 20 %), no file with the ones
# before it a thread time over the time to its end by more than 5 %; each pprof's time_nanos is the process's start
# (the whole profile's) plus the interval's start (within 2 ms: info gives
# that start to 4 digits).
# record's summary and `info DIR` say how many interval files and where.
check "compile the napping program" cc_plugin nap "$INCLPROF_SRC/tests/programs/runtime/nap_seconds.c" -O1
check "record it with --interval 500ms" sh -c "'$INCLPROF' record --aggregate --interval 500ms -o np -- ./nap 2.5 > np.out 2>np.err"
"$INCLPROF" export --format pprof -o np.pb.gz np 2>/dev/null || fail "export pprof np"
n=0
for f in np/*.intervals/*.ipb; do
  "$INCLPROF" info "$f" >"np$n.info" 2>&1
  "$INCLPROF" export --format csv -o "np$n.csv" "$f" 2>/dev/null || fail "export csv $f"
  "$INCLPROF" export --format pprof -o "np$n.pb.gz" "$f" 2>/dev/null || fail "export pprof $f"
  n=$((n + 1))
done
check "at least 5 interval files ($n)" test "$n" -ge 5
iv=$(cd np && ls -d *.intervals)
check "record's summary counts them and says where" grep -q "^inclprof: 1 trace file written to np/, $n interval profiles in np/$iv/ ('inclprof info np' lists them) (status 0)$" np.err
"$INCLPROF" info np > np.info 2>&1
check "info DIR lists them" grep -q "^intervals: *$n profiles in np/$iv/ (one per interval: 'inclprof report np/$iv/NNNNNN.ipb' reads one)$" np.info
cat > np.py <<'PY'
import csv, re, sys
exec(open("pb.py").read())
n = int(sys.argv[1])
start = field("np.pb.gz", 9) or 0
cum = 0
for k in range(n):
    m = re.search(r"^interval: +%d: from ([0-9.]+) (ns|us|ms|s) to ([0-9.]+) (ns|us|ms|s) after the process's start \(([0-9.]+) (ns|us|ms|s)\)$" % k,
                  open("np%d.info" % k).read(), re.M)
    if not m:
        print("FAIL - nap interval %d: info gives no 'interval:' line" % k); continue
    a, d = ns(*m.group(1, 2)), ns(*m.group(5, 6))
    rows = list(csv.DictReader(open("np%d.csv" % k)))
    el = sum(int(x["elapsed_exclusive_ns"]) for x in rows)
    cum += el
    print("%s - nap interval %d: the thread's Elapsed time, %d ns (%.1f %% of its span), with the files before it at most the time to its end (%.1f %%)" % ("ok" if cum <= (a + d) * 1.05 else "FAIL", k, el, 100 * el / d, 100 * cum / (a + d)))
    if k < n - 1:
        nap = sum(int(x["elapsed_inclusive_ns"]) for x in rows if x["function"] == "nap")
        print("%s - nap interval %d: nap's Elapsed time, %d ns, is about its span (%.1f %%)" % ("ok" if abs(nap - d) <= 0.2 * d else "FAIL", k, nap, 100 * nap / d))
    t = field("np%d.pb.gz" % k, 9) or 0
    print("%s - nap interval %d: the pprof's time_nanos is the process's start plus %.0f ns (%+d ns)" % ("ok" if abs(t - start - a) <= 2e6 else "FAIL", k, a, t - start - a))
PY
python3 np.py "$n"

"$INCLPROF" record --interval 1s -o bad -- ./paths 2> bad.err; rc=$?
check_eq "--interval without --aggregate: exit 2" 2 "$rc"
check "... saying it needs --aggregate" grep -q -- "--interval needs --aggregate" bad.err

check "report reads a profile" sh -c "'$INCLPROF' report a1 > report.txt"
check "report: fib's row" grep -q ' fib(int, int)$' report.txt
check "report: the header says it is a profile" grep -q '^profiles: *1 of 1 processes recorded with --aggregate' report.txt
check "report --raw of a profile" sh -c "'$INCLPROF' report --raw a1 > raw.txt"
check "... whose header says it is compensated, in the process" grep -q '^compensation: on, in the process as recorded (probe cost' raw.txt
check "info says so" sh -c "'$INCLPROF' info a1 | grep -q '^kind: *an aggregate profile'"
check "info: every record read, no event index" sh -c "'$INCLPROF' info a1 | grep -qx 'read: *every record (an aggregate profile has no event index)'"
# call lines: the same calls per line of catcher's library calls as the trace
# (in line order: the report orders them by time, which two runs may swap)
lines() { "$INCLPROF" report --callees catcher "$1" | sed -n '/^call lines of/,$p' | awk 'NR > 2 {print $1, $(NF-1), $NF}' | sort -k3; }
check_eq "report --callees: catcher's call lines as in the trace" "$(lines t1)" "$(lines a1)"
check "... two of them, 600 calls each" test "$(lines a1 | grep -c '^600 ')" -eq 2
check "report --tree" sh -c "'$INCLPROF' report --tree a1 | grep -q 'thrower(int, int)'"
check "report --latency: fib's quantiles" sh -c "'$INCLPROF' report --latency a1 | grep -q 'fib(int, int)'"
check "report --by thread: three threads" sh -c "test \$('$INCLPROF' export --format csv --by thread -o - a1 | wc -l) -eq 4"
for f in pprof callgrind folded html; do
  check "export --format $f" "$INCLPROF" export --format $f -o out.$f a1
done
check "callgrind: fib's calls" sh -c "grep -q '^calls=' out.callgrind"
check "diff of a trace and a profile" sh -c "'$INCLPROF' diff t1 a1 > diff.txt"
check "suggest reads a profile" sh -c "'$INCLPROF' suggest -o filter.txt a1"
"$INCLPROF" report --slowest fib a1 > /dev/null 2> slow.err; rc=$?
check_eq "report --slowest of a profile: exit 2" 2 "$rc"
check "... saying it needs a trace" grep -q -- "--slowest needs a trace: .* is an aggregate profile" slow.err
"$INCLPROF" report --critical a1 > /dev/null 2> crit.err; rc=$?
check_eq "report --critical of a profile: exit 2" 2 "$rc"
check "... saying it keeps no wake-ups" grep -q -- "--critical needs a trace: .* keeps no wake-up" crit.err
check "... and to record without --aggregate" grep -q -- "wake-up of one thread by another; record without --aggregate" crit.err
"$INCLPROF" export --format locks -o locks.csv a1 > /dev/null 2> locks.err; rc=$?
check_eq "export --format locks of a profile: exit 1" 1 "$rc"
check "... saying it needs a trace, not kernel events" grep -q -- "--format locks needs a trace: .* is an aggregate profile (recorded with --aggregate), which keeps no futex wait; record without --aggregate" locks.err
check "... and writing no file" test ! -e locks.csv
"$INCLPROF" report --latency --value application a1 > /dev/null 2> lat.err; rc=$?
check_eq "report --latency --value application of a profile: exit 2" 2 "$rc"
check "... saying it keeps the Elapsed distribution" grep -q "keeps the calls' Elapsed distribution only" lat.err
for f in chrome perfetto speedscope; do
  "$INCLPROF" export --format $f -o out.$f a1 2> err.$f; rc=$?
  check_eq "export --format $f of a profile: exit 2" 2 "$rc"
  check "... saying it needs a trace" grep -q "needs a trace: .* is an aggregate profile" err.$f
  check "... and writing no file" test ! -e out.$f
done
done_testing
