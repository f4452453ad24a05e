#!/bin/sh
# record_rate_warning.sh - record watches the trace grow while the program
# runs: after the first second of a recording that grows faster than the
# limit (INCLPROF_RATE_WARNING, bytes a minute; here 1M so that any machine
# reaches it), one line on record's stderr gives the rate, the size a minute
# and the suggest command; 0 silences it; the program's own output is left
# alone; a program that ends at once is not held up by the watch.
# timing: the last check allows 900 ms where the watch would add 1000.
. "$INCLPROF_SRC/tests/lib.sh"
check "many_calls builds" cc_plugin many "$INCLPROF_SRC/tests/programs/convert/many_calls.c" -O2
# Enough calls for well over a second on a busy machine.
n=40000000
INCLPROF_RATE_WARNING=1M "$INCLPROF" record -o fast -- ./many $n >out 2>err
check_eq "the program's output is its own" "$(awk -v n=$n 'BEGIN { printf "%.0f", n * (n - 1) / 2 }')" "$(cat out)"
check_eq "one warning line" 1 "$(grep -c '^inclprof record: the trace grows by' err)"
check "it gives the rate, the size a minute and the suggest command" grep -Eq \
  "^inclprof record: the trace grows by [0-9.]+ [KMG]?B a second \([0-9.]+ [KMG]?B a minute at this rate\) in fast/; after this run, 'inclprof suggest fast' writes a filter" err
INCLPROF_RATE_WARNING=0 "$INCLPROF" record -o quiet -- ./many $n >/dev/null 2>err
check "INCLPROF_RATE_WARNING=0: no warning" sh -c "! grep -q 'the trace grows' err"
t0=$(date +%s%N)
"$INCLPROF" record -o quick -- ./many 10 >/dev/null 2>&1
t1=$(date +%s%N)
check "a program that ends at once is not held up by the watch ($(( (t1 - t0) / 1000000 )) ms)" \
  test $(( (t1 - t0) / 1000000 )) -lt 900
done_testing
