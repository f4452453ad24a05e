#!/bin/sh
# sampling_signals.sh - a program with its own SIGALRM and SIGPROF handlers
# and setitimer timers behaves the same with sampling on: same output, its
# handlers run about as often as its timers say (and exactly as often as the
# trace records them being called), its sleeps last, and samples are taken.
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
P="$INCLPROF_SRC/tests/programs/sampling"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
# within FILE WHAT LOW HIGH: "WHAT N expected E [queued Q]" in FILE with
# LOW <= N/(E-Q) and N/E <= HIGH (Q: timer expirations that can merge while
# the thread waits for a CPU; 0 when not given)
within() {
  awk -v w="$2" -v lo="$3" -v hi="$4" '$1 == w && $3 == "expected" && $4 > 0 {
    q = $5 == "queued" ? $6 : 0; seen = $4 - q; found = 1
    exit !((seen <= 0 || $2 / seen >= lo) && $2 / $4 <= hi) } END { if (!found) exit 1 }' "$1"
}

check "compile with the plugin" gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/signals.c" -o signals
./signals 30000 >bare.txt
check_eq "without the runtime: exit status" 0 "$?"
"$INCLPROF" record -o out --sample-hz 2000 -- ./signals 30000 >sampled.txt
check_eq "sampled: exit status" 0 "$?"
check_eq "sampled: same result" "$(grep '^result' bare.txt)" "$(grep '^result' sampled.txt)"
for run in bare sampled; do
  check "$run: SIGPROF handler ran about once per 10 ms of CPU ($(grep '^prof' $run.txt))" \
    within $run.txt prof 0.7 1.3
  check "$run: SIGALRM handler ran about once per 10 ms not spent waiting for a CPU ($(grep '^alrm' $run.txt))" \
    within $run.txt alrm 0.7 1.1
done
check "CSV export" "$INCLPROF" export --format csv -o s.csv out
check_eq "trace: on_prof called as often as the program counted" \
  "$(sed -n 's/^prof \([0-9]*\) .*/\1/p' sampled.txt)" "$(q s.csv '^on_prof$' calls)"
check_eq "trace: on_alrm called as often as the program counted" \
  "$(sed -n 's/^alrm \([0-9]*\) .*/\1/p' sampled.txt)" "$(q s.csv '^on_alrm$' calls)"
# 4 naps of 50 ms, each resumed after every SIGALRM: 200 ms in nanosleep.
nap_ms=$(q s.csv '^nanosleep$' elapsed_inclusive_ns | awk '{printf "%d", $1 / 1e6}')
check "sleeps last their full time despite the signals (${nap_ms} ms in nanosleep)" test "$nap_ms" -ge 199
check "samples taken ($(q s.csv '^main$' inclusive_samples))" test "$(q s.csv '^main$' inclusive_samples)" -ge 500
done_testing
