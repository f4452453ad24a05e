#!/bin/sh
# chrome_large.sh - the Chrome export of a large trace (15 015 001 calls, 2 GiB
# as JSON; see chrome_large.c) stays under the default size limit, keeps the
# longest calls that fit, callers first, says what it left out, and loads in
# the DevTools trace engine.  About 25 s of CPU time, so it is not among the
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
done_testing
