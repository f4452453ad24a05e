#!/bin/sh
# chrome_large.sh - the timeline exports of a large trace (15 015 001 calls,
# 2 GiB as Chrome JSON; see chrome_large.c) stay under their default size
# limits (Chrome 256 MiB, speedscope 128 MiB, Perfetto 256 MiB), keep the
# longest calls that fit, callers first, and say what they left out; the
# Chrome file loads in the DevTools trace engine, and the speedscope file
# opens on the thread's exact timeline.  About 25 s of CPU time, so it is not among the
# tests make check repeats under ASan+UBSan (the unit tests cover the same
# code there).
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"

cap=268435456 # 256 MiB
check "viewers installed" viewers_ready
check "build the trace generator" gcc -O2 -std=c11 -D_GNU_SOURCE -I"$INCLPROF_SRC/tests/unit" -I"$INCLPROF_LIBDIR/gen" \
  -I"$INCLPROF_SRC/include/inclprof" -o gen "$INCLPROF_SRC/tests/integration/chrome_large.c" \
  "$INCLPROF_LIBDIR/libinclprof.a" -lprotobuf-c -ldeflate -lz -lpthread -ldl
mkdir -p inclprof.data
check "write the trace" ./gen inclprof.data/4343.ipb
check "export -f chrome with the default bounds" sh -c '"$INCLPROF" export -f chrome -o large.json 2>err.txt'
size=$(wc -c <large.json)
check "under the default 256 MiB ($size bytes)" test "$size" -le "$cap"
# Every leaf's event has the same size; the export fills the limit up to less than one more.
leaf=$(grep -m1 '"name":"leaf"' large.json | wc -c)
check "no room left for one more leaf ($((cap - size)) bytes left, a leaf takes $leaf)" test $((cap - size)) -lt "$leaf"
# main, the 15000 outer calls (55 us each), then the first 1823288 of the
# 7500000 leaves of 40 ns that fit; none of the leaves of 30 ns.
check_eq "kept main, every outer call and the 40 ns leaves that fit" "1 15000 1823288 0" \
  "$(grep -c '"name":"main","cat"' large.json) $(grep -c '"name":"outer"' large.json) $(grep -c '"dur":0.040,' large.json) $(grep -c '"dur":0.030,' large.json)"
check_eq "one line on stderr says what was left out and how to see more" \
  "inclprof export: chrome: all 15015001 calls would take 2.0 GiB, over the default size limit 256.0 MiB: kept the 1838289 longest (40ns and longer, 256.0 MiB), left out 13176712; more with --max-size SIZE (0: every call) or --min-duration/--time-range|inclprof export: wrote large.json" \
  "$(paste -sd '|' err.txt)"
trace_engine_load large.json >engine.txt
check_eq "the trace engine loads it: 1838289 slices, no error" "threads 1 slices 1838289 errors 0" "$(head -1 engine.txt)"
rm -f large.json
"$INCLPROF" export -f chrome --max-events 15001 -o outer.json 2>/dev/null
check_eq "--max-events 15001: main and the 15000 outer calls" "1 15000 0" \
  "$(grep -c '"name":"main","cat"' outer.json) $(grep -c '"name":"outer"' outer.json) $(grep -c '"name":"leaf"' outer.json)"

# speedscope and Perfetto: the same rule, their own limits.
"$INCLPROF" export -f speedscope -o large.speedscope.json 2>err.txt
size=$(wc -c <large.speedscope.json)
check "speedscope: under the default 128 MiB ($size bytes)" test "$size" -le 134217728
check "speedscope: one line says what was left out" grep -Eq \
  '^inclprof export: speedscope: all 15015001 calls would take [0-9.]+ [MG]iB, over the default size limit 128.0 MiB: kept the [0-9]+ longest \(40ns and longer, [0-9.]+ MiB\), left out [0-9]+; more with --max-size SIZE \(0: every call\)' err.txt
check_eq "speedscope: opens on the thread's timeline; main and the 15000 outer calls kept, nested" \
  "1 evented 1 15000" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["profiles"][d["activeProfileIndex"]]
names = [f["name"] for f in d["shared"]["frames"]]
opens = [names[e["frame"]] for e in p["events"] if e["type"] == "O"]
depth, ok = 0, True
for e in p["events"]:
    depth += 1 if e["type"] == "O" else -1
    ok = ok and depth >= 0
print(d["activeProfileIndex"], p["type"], opens.count("main"), opens.count("outer") if ok and depth == 0 else -1)
' large.speedscope.json)"
rm -f large.speedscope.json
"$INCLPROF" export -f perfetto -o large.perfetto-trace 2>err.txt
size=$(wc -c <large.perfetto-trace)
check "perfetto: under the default 256 MiB ($size bytes)" test "$size" -le "$cap"
check "perfetto: one line says what was left out" grep -Eq \
  '^inclprof export: perfetto: all 15015001 calls would take [0-9.]+ [MG]iB, over the default size limit 256.0 MiB: kept the [0-9]+ longest' err.txt
rm -f large.perfetto-trace
done_testing
