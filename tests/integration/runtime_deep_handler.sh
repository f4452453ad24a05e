#!/bin/sh
# runtime_deep_handler.sh - a program's signal handler that arrives while
# the runtime encodes a thread's events on its own stack (the thread's
# end, tests/programs/runtime/deep_handler.c) runs on the thread's stack,
# not on the runtime's: a handler with a 256 KB array of its own, and one
# with 1 KB, sent to threads as they end, run as in a plain run (the
# runtime's stack was overflowed into the contexts of its switch: status
# 139; a handler's probe after the thread's kevents ring was unmapped, or
# while the thread was being set up, read an unmapped counter).
# timing: each run is killed after 60 s (they take about a second).
. "$INCLPROF_SRC/tests/lib.sh"
src="$INCLPROF_SRC/tests/programs/runtime/deep_handler.c"
gcc -O1 -pthread -o deep_plain "$src" || { fail "build deep_handler"; exit 1; }
cc_plugin deep_rec "$src" -O1 -pthread || { fail "build deep_handler with the plugin"; exit 1; }

# run NAME KB ROUNDS
run() {
  timeout -s KILL 60 ./deep_plain "$2" "$3" >plain.out 2>&1
  check_eq "$1: plain run's status" 0 "$?"
  INCLPROF_OUTPUT=out-$1 timeout -s KILL 60 ./deep_rec "$2" "$3" >prof.out 2>prof.err
  check_eq "$1: the program's status" 0 "$?"
  check_eq "$1: the program's output" "$(cat plain.out)" "$(cat prof.out)"
  f=$(ls out-$1/*.ipb)
  "$INCLPROF" info "$f" >info 2>&1
  check "$1: the trace ends cleanly at exit" grep -q '^trailer:      clean shutdown, exit reason: exit;' info
}

run deep 256 40
run small 1 40
done_testing
