#!/bin/sh
# sampling_dispositions.sh - the sampler's signal is the runtime's own: a
# program recorded with --sample-hz that looks at every signal's
# disposition sees no handler it did not install, and one that sets every
# signal to SIG_DFL keeps running (the next sample killed it, by the
# sampler's real-time signal) (tests/programs/sampling/dispositions.c:
# 200 ms of CPU time at 997 samples a second).  Status, output and samples
# as expected: the plain run's lines, exit 0, samples in the trace.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
src="$INCLPROF_SRC/tests/programs/sampling/dispositions.c"
gcc -O2 -o disp_plain "$src" || { fail "build dispositions"; exit 1; }
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o disp "$src" || { fail "build dispositions with the plugin"; exit 1; }
./disp_plain >plain.out 2>&1
check_eq "plain: status" 0 "$?"
check_eq "plain: no handler before or after" "handlers 0
computed
handlers 0" "$(cat plain.out)"
"$INCLPROF" record --sample-hz 997 -o out -- ./disp >rec.out 2>rec.err
check_eq "recorded: status" 0 "$?"
check_eq "recorded: the plain run's output" "$(cat plain.out)" "$(cat rec.out)"
"$INCLPROF" export --format csv -o s.csv out >/dev/null 2>&1
samples=$(q s.csv '^step$' inclusive_samples)
check "recorded: step() sampled (${samples:-none})" test "${samples:-0}" -gt 0
done_testing
