#!/bin/sh
# runtime_spawn_signals.sh - a parent with handlers of its own starts
# children the ways CPython's subprocess does (tests/programs/runtime/
# spawn_signals.c): vfork with a child that resets every handler (64
# sigaction calls) before execve, posix_spawn with POSIX_SPAWN_SETSIGDEF, and
# clone(CLONE_VM|CLONE_VFORK).  Recorded, its handlers still run after every
# start (a vfork child's sigaction must not touch the parent's handler
# table), its output and status are a plain run's, and its trace holds the
# parent's calls only, counted exactly: none of the child's probes (its
# reset_handlers, 64 sigaction and execve calls) land in the parent's
# buffers.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o spawn_signals \
  "$INCLPROF_SRC/tests/programs/runtime/spawn_signals.c" || { fail "build spawn_signals"; exit 1; }
for how in vfork spawn clone; do
  ./spawn_signals $how 5 >plain.out 2>&1
  plain_rc=$?
  check_eq "$how: plain run, every handler call counted" \
    "children failed 0, handler calls usr1 5 term 5, work 5" "$(cat plain.out)"
  "$INCLPROF" record -o out-$how -- ./spawn_signals $how 5 >prof.out 2>prof.err
  check_eq "$how: recorded, the program's status" "$plain_rc" "$?"
  check_eq "$how: recorded, the program's output (its handlers ran after every start)" \
    "$(cat plain.out)" "$(cat prof.out)"
  check_eq "$how: one trace, the parent's" 1 "$(ls out-$how | grep -c '\.ipb$')"
  "$INCLPROF" export --format csv -o $how.csv out-$how >/dev/null 2>&1 ||
    { fail "$how: export the trace"; continue; }
  check_eq "$how: the parent's work() calls" 5 "$(q $how.csv '^work$' calls)"
  check_eq "$how: the parent's handler calls" "5 5" \
    "$(q $how.csv '^on_usr1$' calls) $(q $how.csv '^on_term$' calls)"
  check_eq "$how: sigaction: the parent's 2 calls, none of the children's 320" 2 \
    "$(q $how.csv '^sigaction$' calls)"
  check_eq "$how: none of the children's own functions and calls" "" \
    "$(q $how.csv '^(reset_handlers|child_exec|execve)$' calls)"
done
check_eq "spawn: posix_spawn called 5 times" 5 "$(q spawn.csv '^posix_spawn$' calls)"
check_eq "clone: clone called 5 times" 5 "$(q clone.csv '^clone$' calls)"
done_testing
