#!/bin/sh
# suggest_threads.sh - suggest weighs the probes against each thread's own
# time on CPU, and each function's against its own time on CPU (not its
# Elapsed time, which waits for a CPU inflate on a busy machine), names the
# threads slowed most, offers no rebuild (writes no filter) when there is
# nothing to exclude, and excludes the first function a fork child enters;
# the report's probe-cost warning names suggest only for threads it counts
# and probes that cost enough of the session for a filter to gain.
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

# The report's probe-cost warning sends a user to suggest only where suggest
# acts: on the busy thread above it does; a thread whose 30 000 dense calls
# cost about 1 ms in a 3 s run is slowed by nothing that counts, and suggest
# excludes nothing for it, so no warning.
"$INCLPROF" report busy >busy.report 2>&1
check "the busy run's report warns of the probe cost and names suggest" \
  grep -q "^warning: *probe cost.*'inclprof suggest'" busy.report
check "brief_dense builds" cc_plugin brief "$P/brief_dense.c" -O2 -pthread
"$INCLPROF" record -o brief.data -- ./brief >/dev/null 2>&1
"$INCLPROF" suggest -o brief.filter brief.data >brief.out 2>&1
check "brief_dense: suggest has nothing to exclude" grep -q '^nothing to exclude' brief.out
"$INCLPROF" report brief.data >brief.report 2>&1
check "brief_dense: the report does not send the user to suggest ($(grep '^warning: *probe cost' brief.report))" \
  sh -c "! grep -q \"^warning: *probe cost\" brief.report"
# 300 000 calls beside six threads asleep for the 3 s: the thread's probes
# count against the wall time, but cost under 0.1 % of the thread-summed
# session, so suggest excludes none of its functions; the warning stays and
# says so instead of naming suggest as the next step.
"$INCLPROF" record -o brief6.data -- ./brief 300000 6 >/dev/null 2>&1
"$INCLPROF" suggest -o brief6.filter brief6.data >brief6.out 2>&1
check "brief_dense with sleepers: suggest has nothing to exclude" grep -q '^nothing to exclude' brief6.out
"$INCLPROF" report brief6.data >brief6.report 2>&1
check "brief_dense with sleepers: the warning says a filter gains nothing, and does not send the user to suggest" \
  sh -c "grep '^warning: *probe cost' brief6.report | grep -q 'too little for a filter to gain anything' && ! grep -q \"^warning: *probe cost.*'inclprof suggest' names\" brief6.report"

# A fork child calling leaf 2 M times right after the fork: its trace begins
# inside main, so leaf is not a thread's outermost function and goes.
check "fork_hot builds" cc_plugin forkhot "$P/fork_hot.c" -O2
"$INCLPROF" record -o forkhot.data -- ./forkhot 2000000 >/dev/null 2>&1
"$INCLPROF" suggest --max-fold 100 -o forkhot.filter forkhot.data >forkhot.out 2>&1
check "a fork child's first function is excluded ($(grep ' leaf ' forkhot.out))" \
  grep -qx 'exclude = leaf' forkhot.filter
check "it is not called a thread's outermost function" \
  sh -c "! grep ' leaf ' forkhot.out | grep -q 'outermost'"

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
