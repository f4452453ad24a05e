#!/bin/sh
# suggest_threads.sh - suggest weighs the probes against each thread's own
# time on CPU, and each function's against its own time on CPU (not its
# Elapsed time, which waits for a CPU inflate on a busy machine), names the
# threads slowed most, and offers no rebuild (writes no filter) when there
# is nothing to exclude.
. "$INCLPROF_SRC/tests/lib.sh"
P=$INCLPROF_SRC/tests/programs/convert

# Threads that sleep: their probes are nothing against the wall time.
check "sleepers builds" cc_plugin sleepers "$P/sleepers.c" -O2 -pthread
"$INCLPROF" record -o sleep -- ./sleepers >/dev/null 2>&1
"$INCLPROF" suggest -o sleep.filter sleep >sleep.out 2>&1
check_eq "sleepers: exit 0" 0 $?
check "sleepers: nothing to exclude, and it says so" \
  grep -q '^nothing to exclude: no thread is slowed by more than the limit; keep the build as it is (no filter written)$' sleep.out
check "sleepers: no rebuild offered" sh -c "! grep -q 'Rebuild' sleep.out"
check "sleepers: no filter written" sh -c "test ! -e sleep.filter && test ! -e sleep.filter.part"
check_eq "sleepers: the four threads listed as negligible" 4 "$(grep -c 'negligible: under 0.1% of the wall time' sleep.out)"

# One thread making 2 M tiny calls: slowed far beyond the limit until leaf
# goes (--max-fold 100: leaf is most of the run, and main may take its time).
check "many_calls builds" cc_plugin many "$P/many_calls.c" -O2
"$INCLPROF" record -o busy -- ./many 2000000 >/dev/null 2>&1
"$INCLPROF" suggest --max-fold 100 -o busy.filter busy >busy.out 2>&1
line=$(grep -A1 '^threads slowed most' busy.out | tail -1)
before=$(echo "$line" | sed -n 's/.*probes *\([0-9.]*\)% before.*/\1/p')
after=$(echo "$line" | sed -n 's/.*before, *\([0-9.]*\)% after.*/\1/p')
check "the busy thread is named first ($line)" sh -c "echo '$line' | grep -q '(many)'"
if awk -v b="$before" -v a="$after" 'BEGIN { exit !(b > 20 && a < 5) }'; then
  ok "its probes: $before% of its time on CPU before, $after% after the exclusion"
else fail "its probes: $before% before, $after% after (expected > 20% and < 5%)"; fi
check "leaf is excluded" grep -qx 'exclude = leaf' busy.filter
check "the rebuild is offered" grep -q 'Rebuild with the plugin and this filter' busy.out

# unit() (about 250 ns a call, some 20 % more in probes) on a CPU shared with
# nine spinning threads: its Elapsed Inclusive is ten times its time on CPU
# or more (0.6 % of it in probes on the loaded 2-core VM), and it is still
# the function that slows main (--max-fold 100: it is most of the run).
check "crowded_calls builds" cc_plugin crowd "$P/crowded_calls.c" -O2 -pthread
"$INCLPROF" record -o crowd.data -- ./crowd >/dev/null 2>&1
if "$INCLPROF" info crowd.data | grep -qi 'transitions*[^a-z]*none'; then
  ok "transition mode none: no waits are known; skipping the crowded CPU"
else
  "$INCLPROF" suggest --max-fold 100 -o crowd.filter crowd.data >crowd.out 2>&1
  row=$(grep ' unit  *exclude' crowd.out)
  check "crowded unit() is excluded: its probes against its time on CPU, not its Elapsed time (${row:-$(grep ' unit ' crowd.out)})" \
    grep -qx 'exclude = unit' crowd.filter
  share=$(echo "$row" | awk '{ print $7 + 0 }')
  check "unit()'s Of own incl is its time on CPU's share ($share%, over the 5% limit)" \
    awk -v s="${share:-0}" 'BEGIN { exit !(s > 5) }'
fi
done_testing
