#!/bin/sh
# runtime_close_exec.sh - a forked child that closes every descriptor and
# execs (tests/programs/runtime/close_exec.c) gets nothing from the runtime
# on its stderr, a pipe its parent reads: its trace ends with a Trailer
# (reason exec) whether it closed them through libc (closefrom, which
# passes over the runtime's descriptors) or behind libc's back (the runtime
# opens its trace again).  Every process's trace is complete and none is
# reported as killed.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o close_exec \
  "$INCLPROF_SRC/tests/programs/runtime/close_exec.c" || { fail "build close_exec"; exit 1; }
for how in closefrom raw; do
  ./close_exec $how 1000 >plain.out 2>&1
  check_eq "$how: plain run" "child: status 0, stderr 0 bytes" "$(cat plain.out)"
  "$INCLPROF" record -o out-$how -- ./close_exec $how 1000 >prof.out 2>prof.err
  check_eq "$how: recorded, the program's status" 0 "$?"
  check_eq "$how: recorded, nothing on the child's stderr" "$(cat plain.out)" "$(cat prof.out)"
  check_eq "$how: three traces: the parent, the child up to its exec, the exec'd image" 3 \
    "$(ls out-$how | grep -c '\.ipb$')"
  reasons=$(for f in out-$how/*.ipb; do
    "$INCLPROF" info "$f" 2>/dev/null | sed -n 's/^trailer:      clean shutdown, exit reason: \([a-z]*\);.*/\1/p'
  done | sort | tr '\n' ' ')
  check_eq "$how: every trace ends cleanly (exit, exit, exec)" "exec exit exit " "$reasons"
  "$INCLPROF" report out-$how >report 2>&1
  check "$how: report calls no process killed" sh -c '! grep -q "killed" report'
  "$INCLPROF" export --format csv -o $how.csv out-$how >/dev/null 2>&1
  check_eq "$how: the child's 1000 work() calls and the exec'd image's 1000" 2000 \
    "$(q $how.csv '^work$' calls)"
done
done_testing
