#!/bin/sh
# runtime_small_stack.sh - threads started with PTHREAD_STACK_MIN (16 KB,
# their TLS carved out of it; tests/programs/runtime/small_stack.c) run as
# in a plain run: the runtime encodes their events on a stack of its own,
# not on theirs.  One thread that returns after 10 calls (its events
# written as it ends) and three that make 40 000 calls each (a full
# buffer written while they run): status 0, the plain run's output, every
# work() call in the trace, which ends cleanly.
# timing: each run is killed after 20 s (they take milliseconds).
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
src="$INCLPROF_SRC/tests/programs/runtime/small_stack.c"
gcc -O2 -pthread -o small_plain "$src" || { fail "build small_stack"; exit 1; }
cc_plugin small_rec "$src" -O2 -pthread || { fail "build small_stack with the plugin"; exit 1; }

# run NAME THREADS CALLS
run() {
  timeout -s KILL 20 ./small_plain "$2" "$3" >plain.out 2>&1
  check_eq "$1: plain run's status" 0 "$?"
  check_eq "$1: plain output" "work $(($2 * $3))" "$(cat plain.out)"
  INCLPROF_OUTPUT=out-$1 timeout -s KILL 20 ./small_rec "$2" "$3" >prof.out 2>prof.err
  check_eq "$1: the program's status" 0 "$?"
  check_eq "$1: the program's output" "$(cat plain.out)" "$(cat prof.out)"
  check_eq "$1: nothing on stderr" "" "$(cat prof.err)"
  f=$(ls out-$1/*.ipb)
  "$INCLPROF" export --format csv -o $1.csv "$f" >/dev/null 2>&1
  check_eq "$1: every work() call recorded" $(($2 * $3)) "$(q $1.csv '^work$' calls)"
  "$INCLPROF" info "$f" >info 2>&1
  check "$1: the trace ends cleanly at exit" grep -q '^trailer:      clean shutdown, exit reason: exit;' info
}

run ends 1 10
run fills 3 40000
done_testing
