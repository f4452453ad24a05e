#!/bin/sh
# runtime_signal_race.sh - probes inside signal handlers that interrupt probes:
# every handler call the program counted is in the trace, or counted as
# dropped (a handler that lands while its thread flushes writes into 256
# slots of headroom, and a storm on a busy machine can fill them): none is
# silently lost, and when none was dropped the trace is balanced.
# timing: how many events a storm drops depends on how long a flush takes.
. "$INCLPROF_SRC/tests/lib.sh"
check "compile with the plugin" gcc -O2 -pthread -fplugin="$INCLPROF_PLUGIN" \
  "$INCLPROF_SRC/tests/programs/runtime/sigstorm.c" -o sigstorm
for mode in none kevents; do
  rm -rf out
  "$INCLPROF" record -o out --transitions $mode -- ./sigstorm 20000 >out.txt 2>err.txt
  check_eq "$mode: exit status" 0 "$?"
  n=$(sed -n 's/^handled \([0-9]*\)$/\1/p' out.txt)
  check_eq "$mode: the handler ran once per signal" 20000 "$n"
  "$INCLPROF" export --format csv -o s.csv out 2>/dev/null
  calls=$(awk -F, '$1 == "on_usr1" { print $5 }' s.csv)
  dropped=$("$INCLPROF" info out 2>/dev/null | sed -n 's/^trailer:.* \([0-9]*\) dropped.*/\1/p' | head -n1)
  if [ "${dropped:-0}" -eq 0 ]; then
    check_eq "$mode: every handler call is in the trace (none dropped)" "$n" "$calls"
    "$INCLPROF" report out >report.txt 2>&1
    check "$mode: no exit had to be repaired" grep -q "^repairs: *0 exits reconciled" report.txt
  elif [ "$calls" -le "$n" ] && [ $((calls + dropped)) -ge "$n" ]; then
    ok "$mode: $calls handler calls in the trace, the rest among the $dropped events counted as dropped"
  else
    fail "$mode: $calls of $n handler calls in the trace with $dropped events dropped: some were lost without a count"
  fi
done
done_testing
