#!/bin/sh
# sampling_proportions.sh - CPU-time samples follow where the CPU goes: with
# heavy() doing 3 units of pure computation per round and light() 1, each
# function's share of Exclusive Samples is within 5 points of its share of
# Application Exclusive time (the CPU's work: Elapsed also holds the time the
# thread waited for a CPU, which a loaded machine hands out unevenly), at 1 kHz
# and at 2 kHz; hundreds of samples are taken, at the requested rate per CPU
# second.
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
P="$INCLPROF_SRC/tests/programs/sampling"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }

check "compile with the plugin" gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/proportions.c" -o proportions
for hz in 1000 2000; do
  "$INCLPROF" record -o out$hz --sample-hz $hz -- ./proportions 16000 >/dev/null 2>run$hz.txt
  check_eq "$hz Hz: exit status" 0 "$?"
  check "$hz Hz: CSV export" "$INCLPROF" export --format csv -o p$hz.csv out$hz
  total=$(q p$hz.csv --all exclusive_samples | awk '{s += $1} END {print s + 0}')
  check "$hz Hz: hundreds of samples ($total)" test "$total" -ge 300
  for f in heavy light; do
    share=$(q p$hz.csv "^$f\$" exclusive_samples_pct)
    app=$(q p$hz.csv "^$f\$" application_exclusive_pct)
    check_near "$hz Hz: $f exclusive sample share vs application exclusive share" "$app" "$share" 5
  done
  # Every sample in instrumented code lands on one function: the exclusive
  # shares add up to 100% less the share of the samples the report counts
  # outside instrumented code (before the first probe, after the last).
  sum=$(q p$hz.csv --all exclusive_samples_pct | awk '{s += $1} END {printf "%.3f", s}')
  want=$("$INCLPROF" report out$hz 2>/dev/null |
    sed -n 's/^samples: *\([0-9]*\) (\([0-9]*\) outside instrumented code.*/\1 \2/p' |
    awk '{ printf "%.3f", $1 ? 100 * ($1 - $2) / $1 : 100 }')
  check_near "$hz Hz: exclusive sample shares add up to 100% less the samples outside ($want)" "$want" "$sum" 0.01
  cpu_ms=$(sed -n 's/^cpu_ms //p' run$hz.txt)
  taken=$("$INCLPROF" info out$hz | sed -n 's/^sampling: .* taken \([0-9]*\).*/\1/p')
  check "$hz Hz: inclprof info reports the rate and the samples taken" \
    sh -c "'$INCLPROF' info out$hz | grep -q '^sampling: *$hz Hz per thread CPU time; taken $taken'"
  # The perf task-clock sampler keeps the rate; the timer_create fallback (no
  # perf_event_open) is capped by the kernel's tick rate.
  if [ "$(id -u)" = 0 ]; then
    rate=$(awk -v n="$taken" -v ms="$cpu_ms" 'BEGIN {printf "%.0f", n * 1000 / ms}')
    check_near "$hz Hz: samples per CPU second" "$hz" "$rate" "$((hz / 5))"
  else
    echo "ok - $hz Hz: rate not checked: not root, perf sampler may be refused # SKIP"
  fi
done
done_testing
