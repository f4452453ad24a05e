#!/bin/sh
# snapshot_values.sh - the values of a snapshot of a slow call against what
# the program knows (tests/programs/latency/joined_window.c: main asleep in
# pthread_join and a sleeper asleep in read() through every slow call, and
# calls of handle() that wait up to 8 ms for big_lock, which a holder thread
# holds): the sleeping threads read no Application time and their window as
# Blocked time; --latency and --slowest count the calls the table counts
# (not the one open at the window's start); the header says which slow call
# the file is a snapshot of and that the window, not the process, ended;
# --critical follows the slow call from its start to its end and names
# big_lock and its holder, and charges no sleep to a thread's exit.
. "$INCLPROF_SRC/tests/lib.sh"
cc_plugin jw -O2 -g -pthread "$INCLPROF_SRC/tests/programs/latency/joined_window.c"
"$INCLPROF" record -o rec --transitions kevents --snapshot-if 'handle>5ms' ./jw >own.txt 2>err.txt
check_eq "the program ran recorded" 0 "$?"
pid=$(ls rec/*.ipb | sed -n 's|^rec/\([0-9]*\)\.ipb$|\1|p' | head -1)
sleeper=$(awk '$1 == "sleeper" { print $2 }' own.txt)
n=$(ls rec/snapshots 2>/dev/null | wc -l)
check "snapshots were kept ($n)" test "$n" -ge 4
if ! "$INCLPROF" info rec 2>/dev/null | grep -Eq 'why:.*, wake-ups, futex waits'; then
  echo "ok - kevents with wake-ups and futex waits unavailable here: $("$INCLPROF" info rec 2>/dev/null | sed -n 's/^ *why: //p' | head -1) # SKIP"
  done_testing
  exit
fi

# ns NUMBER UNIT: the value in ns
ns() { awk -v v="$1" -v u="$2" 'BEGIN { m = u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1; printf "%.0f\n", v * m }'; }

locks=0 asleep=0
for snap in rec/snapshots/*; do
  name=${snap##*/}
  "$INCLPROF" report "$snap" >"$name.table" 2>&1
  "$INCLPROF" report --by thread "$snap" >"$name.threads" 2>&1
  "$INCLPROF" report --by thread --wait "$snap" >"$name.wait" 2>&1
  # main and the sleeper: asleep from the window's start to its end (no
  # event of theirs in it: on a busy machine a window of a fast call that
  # waited for a CPU may come before main's pthread_join)
  "$INCLPROF" info "$snap" >"$name.info" 2>&1
  for tid in "$pid" "$sleeper"; do
    [ "$(awk -v t="$tid" '$1 == t { print $2 }' "$name.info")" = 0 ] || continue
    asleep=$((asleep + 1))
    row=$(grep " $pid/$tid " "$name.threads")
    app=$(echo "$row" | awk '{ print $(NF-2) + 0 }')
    check "$name: thread $tid, asleep throughout, has no Application time (App/Wall $app%)" \
      awk -v a="${app:-100}" 'BEGIN { exit !(a <= 1) }'
    w=$(grep " $pid/$tid " "$name.wait")
    el=$(ns $(echo "$w" | awk '{ print $2, $3 }'))
    blk=$(ns $(echo "$w" | awk '{ print $8, $9 }'))
    check "$name: thread $tid's window is Blocked time ($blk of $el ns)" \
      awk -v b="${blk:-0}" -v e="${el:-0}" 'BEGIN { exit !(e > 0 && b >= 0.95 * e) }'
  done
  # the calls of handle: the table's, --latency's and --slowest's alike
  calls=$(awk '$NF == "handle" { print $1 }' "$name.table")
  lat=$("$INCLPROF" report --latency "$snap" 2>/dev/null | awk '$NF == "handle" { print $1 }')
  slow=$("$INCLPROF" report --slowest handle "$snap" 2>/dev/null | sed -n 's/^slowest: the .* of \([0-9]*\) calls of handle.*/\1/p')
  check_eq "$name: --latency counts the table's calls of handle" "$calls" "$lat"
  check_eq "$name: --slowest counts the table's calls of handle" "$calls" "$slow"
  # the header
  check "$name: the header says which slow call it is a snapshot of" \
    grep -q "^snapshot: *$snap/$pid.ipb is a snapshot of a slow call, #[0-9]*: a call of handle took " "$name.table"
  check "$name: the threads alive at the window's end are closed there, not at the process's end" \
    sh -c "grep -q \"alive at the window's end\" $name.table && ! grep -q 'when the process ended' $name.table"
  # the critical path: the slow call's
  "$INCLPROF" report --critical "$snap" >"$name.critical" 2>&1
  check "$name: --critical follows the slow call" \
    grep -q '^critical path: .* of wall time (a snapshot: its slow call on its thread, from the call.s start to its end)' "$name.critical"
  check "$name: --critical charges no sleep to a thread's exit" \
    sh -c "! grep -q 'thread exit' $name.critical"
  if grep -Eq '^ .* big_lock 0x[0-9a-f]* .*pthread_mutex_lock < handle +pthread_mutex_unlock < hold$' "$name.critical"; then
    locks=$((locks + 1))
  fi
done
check "main and the sleeper were asleep through snapshots ($asleep times)" test "$asleep" -ge 2
waited=$(sed -n 's/^waited for big_lock: //p' own.txt)
check "every call that waited over 1 ms for big_lock ($waited) has it in its lock table, released by its holder ($locks)" \
  awk -v w="${waited:-0}" -v l="$locks" 'BEGIN { exit !(w >= 1 && l >= w) }'
done_testing
