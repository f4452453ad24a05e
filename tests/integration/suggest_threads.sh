#!/bin/sh
# suggest_threads.sh - suggest weighs the probes against each thread's own
# time on CPU, names the threads slowed most, and offers no rebuild (writes
# no filter) when there is nothing to exclude.
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
done_testing
