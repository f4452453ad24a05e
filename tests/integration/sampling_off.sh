#!/bin/sh
# sampling_off.sh - without --sample-hz (or with INCLPROF_SAMPLE_HZ=0) no
# sampler is made (no timer_create, no task-clock perf event: strace), the
# trace says sampling is off and every sample column is 0.  A bad
# INCLPROF_SAMPLE_HZ is one line on stderr, and the program runs unsampled.
. "$INCLPROF_SRC/tests/lib.sh"
need strace
P="$INCLPROF_SRC/tests/programs/sampling"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
# all_zero CSV: every row's four sample columns are 0
all_zero() {
  q "$1" --all inclusive_samples exclusive_samples inclusive_samples_pct exclusive_samples_pct |
    awk 'NF != 4 { bad = 1 } { for (i = 1; i <= NF; i++) if ($i + 0 != 0) bad = 1 } END { exit bad || NR < 3 }'
}
samplers() { grep -c 'PERF_COUNT_SW_TASK_CLOCK\|timer_create(' "$1"; }

check "compile with the plugin" gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/proportions.c" -o proportions
strace -f -o st.log -e trace=perf_event_open,timer_create \
  "$INCLPROF" record -o off -- ./proportions 4000 >/dev/null 2>&1
check_eq "off: exit status" 0 "$?"
check_eq "off: no sampler made" 0 "$(samplers st.log)"
check "off: inclprof info says sampling is off" sh -c "'$INCLPROF' info off | grep -q '^sampling: *off\$'"
check "off: CSV export" "$INCLPROF" export --format csv -o off.csv off
check "off: every sample column is 0" all_zero off.csv
check "off: the time columns are not" test "$(q off.csv '^heavy$' elapsed_exclusive_ns)" -gt 0

INCLPROF_SAMPLE_HZ=0 strace -f -o st0.log -e trace=perf_event_open,timer_create \
  "$INCLPROF" record -o zero -- ./proportions 4000 >/dev/null 2>&1
check_eq "INCLPROF_SAMPLE_HZ=0: no sampler made" 0 "$(samplers st0.log)"
"$INCLPROF" export --format csv -o zero.csv zero >/dev/null
check "INCLPROF_SAMPLE_HZ=0: every sample column is 0" all_zero zero.csv

# The same program sampled: the check above can see samplers and samples.
strace -f -o st1.log -e trace=perf_event_open,timer_create \
  "$INCLPROF" record -o on --sample-hz 1000 -- ./proportions 4000 >/dev/null 2>&1
check_eq "on: one sampler (one thread)" 1 "$(samplers st1.log)"
"$INCLPROF" export --format csv -o on.csv on >/dev/null
check "on: main has samples" test "$(q on.csv '^main$' inclusive_samples)" -gt 0

INCLPROF_OUTPUT=bad INCLPROF_SAMPLE_HZ=fast LD_PRELOAD="$INCLPROF_LIBDIR/libinclprof.so" \
  ./proportions 100 >/dev/null 2>err.txt
check_eq "bad INCLPROF_SAMPLE_HZ: program still succeeds" 0 "$?"
check_eq "bad INCLPROF_SAMPLE_HZ: one line on stderr (besides the program's)" 1 "$(grep -vc '^cpu_ms ' err.txt)"
check "bad INCLPROF_SAMPLE_HZ: the line names the variable and the value" \
  grep -q "INCLPROF_SAMPLE_HZ='fast'" err.txt
check "bad INCLPROF_SAMPLE_HZ: recorded unsampled" sh -c "'$INCLPROF' info bad | grep -q '^sampling: *off\$'"
done_testing
