#!/bin/sh
# runtime_signal_race.sh - probes inside signal handlers that interrupt probes:
# every handler call the program counted is in the trace (none silently lost),
# and the trace is balanced.
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
  check_eq "$mode: every handler call is in the trace" "$n" "$calls"
  "$INCLPROF" report out >report.txt 2>&1
  check "$mode: no exit had to be repaired" grep -q "^repairs: *0 exits reconciled" report.txt
done
done_testing
