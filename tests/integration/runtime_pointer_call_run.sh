#!/bin/sh
# runtime_pointer_call_run.sh - a loop of calls through a pointer to a
# function whose calls a filter excludes leaves a pointer call's mark per
# call and no event (tests/programs/runtime/pointer_call_run.c: 41 runs of
# 25 000 calls in a row, against a buffer of 16 384 slots): a full buffer of
# marks is flushed like any other, so nothing is dropped (info, report),
# recorded and under --aggregate; the trace holds one pointer call per call
# (counted by a reader of its own over the frames' EventBatch.pointer_calls);
# and the converter takes the hooks' calibrated cost out once per call: what
# compensation removes from run()'s Elapsed Inclusive (the CSV against
# --raw's) is the calls times the cost info gives, plus at most the runtime
# gaps (the flushes inside the loop): 1.025 M x 11.89 ns + 0.42 ms of gaps
# removed 12.608 ms where 12.602 were due; the cost calibrated under load
# ran 10.9-20.6 ns, each time removed to 0.1 %.  With the marks past the
# headroom dropped, 0.34 M of 1.025 M were, and about two thirds of what was
# due was removed.
. "$INCLPROF_SRC/tests/lib.sh"
need python3
src=$INCLPROF_SRC/tests/programs/runtime/pointer_call_run.c
printf 'exclude = step\nexclude-calls = step\n' >step.filter
cc_plugin rec -O2 -fplugin-arg-inclprof-filter=step.filter "$src" ||
  { fail "build pointer_call_run with the plugin"; exit 1; }
gcc -O2 -o twin "$src" || { fail "build the twin"; exit 1; }
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }

# The events and pointer calls of a trace's EventBatch records: the frames
# (docs/trace-format.md) read here, apart from the converter.
cat >count.py <<'PY'
import sys
def varint(b, i):
    r = s = 0
    while True:
        c = b[i]; i += 1; r |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return r, i
def fields(b, i, end):
    while i < end:
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i); yield f, v, None
        elif w == 2:
            n, i = varint(b, i); yield f, i, i + n; i += n
        elif w == 1:
            i += 8
        elif w == 5:
            i += 4
        else:
            raise SystemExit("bad wire type %d" % w)
def packed_count(b, s, e):
    return sum(1 for c in b[s:e] if c < 0x80)
b = open(sys.argv[1], "rb").read()
i, events, ptr = 12, 0, 0
while i < len(b):
    n, i = varint(b, i)
    for f, s, e in fields(b, i, i + n):
        if f == 6 and e is not None:  # Record.events
            for g, gs, ge in fields(b, s, e):
                if g == 4 and ge is not None:
                    events += packed_count(b, gs, ge)
                elif g == 14 and ge is not None:
                    ptr += packed_count(b, gs, ge)
    i += n + 4
print(events, ptr)
PY

./twin >twin.txt
"$INCLPROF" record -o tr ./rec >rec.tr.txt 2>/dev/null
"$INCLPROF" record --aggregate -o agg ./rec >rec.agg.txt 2>/dev/null
calls=$(awk '/^calls/ { print $2 }' rec.tr.txt)
check_eq "recorded, the program's output is the twin's" "$(cat twin.txt)" "$(cat rec.tr.txt)"
check_eq "under --aggregate, the program's output is the twin's" "$(cat twin.txt)" "$(cat rec.agg.txt)"
for t in tr agg; do
  "$INCLPROF" info $t >info.$t.txt 2>&1
  check "$t: info reports no dropped event" grep -q 'events written, 0 dropped' info.$t.txt
  "$INCLPROF" report $t >report.$t.txt 2>&1
  check "$t: report gives no warning of dropped events" sh -c "! grep -q dropped report.$t.txt"
done
check_eq "the trace's pointer calls are the program's calls through the pointer" \
  "$calls" "$(python3 count.py tr/*.ipb | cut -d' ' -f2)"
"$INCLPROF" export --format csv -o comp.csv tr >/dev/null 2>&1
"$INCLPROF" export --raw --format csv -o raw.csv tr >/dev/null 2>&1
removed=$(($(q raw.csv '^run$' elapsed_inclusive_ns) - $(q comp.csv '^run$' elapsed_inclusive_ns)))
ptr_ns=$(awk '/ns per call through a pointer/ { print $1 }' info.tr.txt)
gaps_ns=$(awk '/^compensation:/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^(ns|us|ms|s)$/) v = $i * ($(i + 1) == "ns" ? 1 : $(i + 1) == "us" ? 1e3 : $(i + 1) == "ms" ? 1e6 : 1e9) } END { printf "%.0f\n", v }' report.tr.txt)
check "compensation takes ${ptr_ns:-?} ns out of run() per call through the pointer ($calls calls), plus at most the runtime gaps ($gaps_ns ns): removed $removed ns" \
  awk -v r="$removed" -v n="$calls" -v c="${ptr_ns:-0}" -v g="${gaps_ns:-0}" \
  'BEGIN { exit !(c > 0 && r >= 0.995 * n * c && r <= 1.005 * n * c + g + 100000) }'
done_testing
