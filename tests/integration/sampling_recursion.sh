#!/bin/sh
# sampling_recursion.sh - Inclusive Samples count a recursive function once
# per sample: nest() recursing 8 deep has exactly as many inclusive samples as
# were taken while it was on the stack (replayed here from the raw events),
# never more than the total, and its share matches its Application Inclusive
# share; Exclusive Samples still add up to the total.
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/runtime/build.sh"
P="$INCLPROF_SRC/tests/programs/sampling"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }

rt_build || { fail "build the trace dumper"; exit 1; }
check "compile with the plugin" gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/recursion.c" -o recursion
"$INCLPROF" record -o out --sample-hz 2000 -- ./recursion 20000 >/dev/null
check_eq "exit status" 0 "$?"
check "CSV export" "$INCLPROF" export --format csv -o r.csv out
f=$(rt_only_trace out)

# Independent replay of the events: samples not in the runtime (GID column
# 0), those taken while nest was entered and not yet left, and those taken
# while no function was entered (before main, or in exit handlers after it:
# counted in the session's total only).
nest=$(./trace_dump "$f" | sed -n 's/^function gid=\([0-9]*\) name=nest .*/\1/p')
set -- $(./trace_dump -e "$f" | awk -v g="$nest" '
  $1 != "ev" { next }
  $5 == 0 { open++; if ($6 == g) d++ }
  $5 == 1 { open--; if ($6 == g) d-- }
  $5 == 4 && $6 == 0 { total++; if (d > 0) on++; if (open == 0) outside++ }
  END { print total + 0, on + 0, outside + 0 }')
all=$1; on_stack=$2; outside=$3; total=$((all - outside))
check "hundreds of samples ($all, $outside of them outside main)" test "$total" -ge 500
"$INCLPROF" report --samples out >report 2>&1
check "report: $all samples, $outside outside instrumented code" \
  grep -q "^samples: *$all ($outside outside instrumented code" report
incl=$(q r.csv '^nest$' inclusive_samples)
check_eq "nest: inclusive samples = samples taken while it was on the stack" "$on_stack" "$incl"
check "nest: inclusive samples ($incl) <= total ($total)" test "$incl" -le "$total"
check_near "nest: inclusive sample share vs Application Inclusive share (samples follow CPU time; Elapsed also holds the waits for a CPU)" \
  "$(q r.csv '^nest$' application_inclusive_pct)" "$(q r.csv '^nest$' inclusive_samples_pct)" 5
check_eq "main: inclusive samples = every sample taken inside it" "$total" "$(q r.csv '^main$' inclusive_samples)"
check_eq "exclusive samples add up to the samples taken inside main" "$total" \
  "$(q r.csv --all exclusive_samples | awk '{s += $1} END {print s + 0}')"
# main's library calls (atol, printf) are rows of their own: a sample can land there.
lib=$(q r.csv --all function exclusive_samples | awk -F'\t' '$1 != "main" && $1 != "flat" && $1 != "nest" {s += $2} END {print s + 0}')
check_eq "flat + nest inclusive + main exclusive + library calls = the samples inside main" "$total" \
  "$(($(q r.csv '^flat$' inclusive_samples) + incl + $(q r.csv '^main$' exclusive_samples) + lib))"
done_testing
