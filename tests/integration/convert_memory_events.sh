#!/bin/sh
# convert_memory_events.sh - report's memory does not grow with the number
# of events when the call paths repeat: one synthetic trace of 1 M events
# and one of 4 M (convert/bench/gen_trace.c: the same 64 functions and call
# graph, 2 threads), read in one run: the second's peak RSS (getrusage of
# the child) within 2 MB of the first's (measured: 8.4 MB and 8.8 MB), and
# each report's calls the generator's exactly.  Memory grows with a
# thread's distinct call paths (docs/converter.md, "Memory").
. "$INCLPROF_SRC/tests/lib.sh"
check "build the trace generator" gcc -std=c11 -O1 -D_GNU_SOURCE -I"$INCLPROF_LIBDIR/gen" \
  -I"$INCLPROF_SRC/include/inclprof" -o gen "$INCLPROF_SRC/convert/bench/gen_trace.c" \
  "$INCLPROF_LIBDIR/libinclprof.a" -lprotobuf-c -ldeflate -lz -lpthread -ldl
mkdir small large
./gen small/a.ipb 1000000 2 >small.gen 2>&1
./gen large/a.ipb 4000000 2 >large.gen 2>&1

# peak_kb OUT CMD...: runs CMD (its output into OUT), prints its peak RSS in
# KB (tests/programs/convert/peak_rss.c); an AddressSanitizer build without
# its quarantine of freed memory
gcc -O1 -o peak "$INCLPROF_SRC/tests/programs/convert/peak_rss.c" || fail "build the peak launcher"
peak_kb() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" ./peak "$@" 2>/dev/null; }
# calls DIR: the calls of every row of report's table, summed
calls() { awk '/^ *Calls/ { on = 1; next } on && NF > 3 && $1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$1.out"; }
small_kb=$(peak_kb small.out "$INCLPROF" report --top 100 small)
large_kb=$(peak_kb large.out "$INCLPROF" report --top 100 large)
check_eq "1 M events: report's calls are the generator's" \
  "$(sed -n 's/.* \([0-9]*\) calls$/\1/p' small.gen)" "$(calls small)"
check_eq "4 M events: report's calls are the generator's" \
  "$(sed -n 's/.* \([0-9]*\) calls$/\1/p' large.gen)" "$(calls large)"
check "4 M events read within 2 MB of 1 M ($small_kb KB for 1 M, $large_kb KB for 4 M)" \
  test "$large_kb" -le $((small_kb + 2048))
done_testing
