#!/bin/sh
# runtime_fork_in_handler.sh - a child forked inside a signal handler
# (tests/programs/runtime/fork_in_handler.c) records every event: one that
# never returns from the handler (as PostgreSQL's workers, started from the
# postmaster's handlers) and makes 100 000 calls, many buffers' worth, and
# one that returns from it and makes them from main.  Each trace holds
# exactly the calls its process counted, nothing dropped.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o fork_in_handler \
  "$INCLPROF_SRC/tests/programs/runtime/fork_in_handler.c" || { fail "build fork_in_handler"; exit 1; }
for how in stay return; do
  ./fork_in_handler $how 100000 >plain.out 2>&1
  plain_rc=$?
  "$INCLPROF" record -o out-$how -- ./fork_in_handler $how 100000 >prof.out 2>prof.err
  check_eq "$how: the program's status" "$plain_rc" "$?"
  check_eq "$how: the program's output" "$(cat plain.out)" "$(cat prof.out)"
  check_eq "$how: two traces, no warning" "inclprof: 2 trace files written to out-$how/ (status 0)" \
    "$(cat prof.err)"
  for f in out-$how/*.ipb; do
    "$INCLPROF" info "$f" >info 2>&1
    who=parent
    grep -q 'fork child of' info && who=child
    "$INCLPROF" export --format csv -o $who.csv "$f" >/dev/null 2>&1
    check_eq "$how: the $who's work() calls, as it counted them" \
      "$(sed -n "s/^$who work //p" plain.out)" "$(q $who.csv '^work$' calls)"
    check "$how: the $who dropped nothing" grep -q ' 0 dropped$' info
  done
done
done_testing
