#!/bin/sh
# convert_report_layout.sh - what the report's header and columns say to a
# newcomer: the wall time and thread count beside the thread-summed session
# totals, what a % column is a share of, distinct column titles, the per-call
# columns behind --per-call, --by thread with each thread's share of its own
# wall time, and names cut to the terminal's width (never in a pipe):
# at 120 columns the compact set leaves the long name whole, at 60 it loses
# its middle and a line says a column was left out.  Recorded in a window
# while every thread sleeps or waits, the trace holds no thread: the header
# says why, within the width.
. "$INCLPROF_SRC/tests/lib.sh"
check "sleepers builds" cc_plugin sleepers "$INCLPROF_SRC/tests/programs/convert/sleepers.c" -O2 -pthread
"$INCLPROF" record -o tr -- ./sleepers >/dev/null 2>&1
"$INCLPROF" report tr >report.txt 2>/dev/null
check "the header gives the wall time and the threads" \
  grep -Eq "^ +wall time [0-9.]+ m?s by the clock \([0-9.]+ m?s once the probe cost and runtime gaps are removed\); 4 threads in 1 process: the totals add up every thread's time, so they can exceed the wall time$" report.txt
check "the header says what a % column is a share of" \
  grep -q "^ *a % column is a share of the session total of its kind (report --by thread: each thread's share of its own wall time)$" report.txt
# ms VALUE UNIT: VALUE in ms (the report picks the unit that reads best)
ms() { awk -v v="$1" -v u="$2" 'BEGIN { printf "%.2f", u == "s" ? v * 1000 : u == "us" ? v / 1000 : v }'; }
total=$(ms $(sed -n 's/^session: *Elapsed Inclusive \([0-9.]*\) \([a-z]*\),.*/\1 \2/p' report.txt))
wall=$(ms $(sed -n 's/^ *wall time \([0-9.]*\) \([a-z]*\) by the clock.*/\1 \2/p' report.txt))
# Three 200 ms sleeps at once and main waiting as long: about 4 x the wall time
# (3 x at least: on a loaded machine main waits for threads started late,
# and one after another the sleeps would make it 2 x at most).
if awk -v t="$total" -v w="$wall" 'BEGIN { exit !(w > 0 && t / w > 3 && t / w < 4.2) }'; then
  ok "the thread-summed total ($total ms) is about 4x the wall time ($wall ms)"
else fail "the thread-summed total ($total ms) against the wall time ($wall ms): expected about 4x"; fi
titles=$(grep '^ *Calls ' report.txt)
check_eq "distinct column titles" \
  "Calls El Incl El Incl% El Excl El Excl% App Incl App Incl% App Excl App Excl% Function" \
  "$(echo "$titles" | tr -s ' ' | sed 's/^ //')"
check "no per-call columns by default" sh -c "! grep -q 'Avg Incl' report.txt"
check "--per-call adds them" sh -c "'$INCLPROF' report --per-call tr 2>/dev/null | grep -q 'Avg Incl *Min Incl *Max Incl *Function'"
"$INCLPROF" report --by thread tr >threads.txt 2>/dev/null
check "--by thread: the Wall, El/Wall and App/Wall columns" grep -q 'Wall *El/Wall *App/Wall *Thread' threads.txt
# A worker's life is its sleeper call: El/Wall near 100% (the sleep is most of it).
workers=$(awk '/Thread \(pid\/tid\)/ { on = 1; next } on && NF { print $(NF - 3) }' threads.txt |
  tr -d '%' | sort -n | tr '\n' ' ')
lowest=$(echo "$workers" | cut -d' ' -f1)
if awk -v l="$lowest" 'BEGIN { exit !(l >= 90 && l <= 100) }'; then ok "every thread spends 90-100% of its wall time in instrumented code ($workers)"
else fail "El/Wall of the threads: $workers (expected all >= 90%)"; fi
# Names cut to the terminal's width; a pipe gets whole names.
COLUMNS=120 "$INCLPROF" report tr >narrow.txt 2>/dev/null
longest=$(awk '/^ *Calls / { on = 1 } on { if (length($0) > m) m = length($0) } END { print m }' narrow.txt)
check "COLUMNS=120: no table line is longer ($longest)" test "$longest" -le 120
check "COLUMNS=120: the compact set, the long name whole" \
  grep -q '^Calls  *El Incl  *El Incl%  *El Excl%  Function$' narrow.txt
check "... the long name whole beside it" grep -q ' sleeping_in_a_worker_thread_while_the_others_sleep_too$' narrow.txt
COLUMNS=60 "$INCLPROF" report tr >narrower.txt 2>/dev/null
longest=$(awk '/^ *Calls / { on = 1 } on { if (length($0) > m) m = length($0) } END { print m }' narrower.txt)
check "COLUMNS=60: no table line is longer ($longest)" test "$longest" -le 60
check "COLUMNS=60: the long name loses its middle" grep -q ' sleeping_\.\.\.[a-z_]*_sleep_too$' narrower.txt
check "COLUMNS=60: a line says a column was left out" \
  grep -q '^(1 column left out to fit; --wide or --fields shows them)$' narrower.txt
"$INCLPROF" record --delay 60ms --duration 80ms -o asleep -- ./sleepers >/dev/null 2>&1
COLUMNS=60 "$INCLPROF" report asleep >asleep.txt 2>/dev/null
check "a window in which every thread slept: no thread in the trace" \
  grep -q '^files: *1, processes: 1, threads: 0, events: 0$' asleep.txt
check "... and the header says why" sh -c "tr '\n' ' ' <asleep.txt | tr -s ' ' |
  grep -q 'windows: asleep/[0-9]*.ipb: no thread ran an instrumented function while recording was on (each was blocked, asleep or in code not instrumented throughout): 0 threads, no call is counted'"
longest=$(awk '/^ *Calls / { exit } { if (length($0) > m) m = length($0) } END { print m + 0 }' asleep.txt)
check "COLUMNS=60: no header line is longer ($longest)" test "$longest" -le 60
check "a pipe without COLUMNS gets whole names" grep -q ' sleeping_in_a_worker_thread_while_the_others_sleep_too$' report.txt
done_testing
