#!/bin/sh
# runtime_errno.sh - the program's errno across the probes' slow path
# (tests/programs/runtime/errno_kept.c): a million calls of an instrumented
# function, each made with errno set to EINVAL and errno read after it, as
# printf's %m reads it after a helper returns (strace's tests print
# "-1 EINVAL (%m)" so).  Recorded, the buffer handoffs and the table file
# written at the first one (whose stat of a file not there yet fails) leave
# errno as it was after every call; starting the runtime (system calls
# that fail by design: a calibration file not there yet) leaves main the
# errno 0 that C starts a program with.
. "$INCLPROF_SRC/tests/lib.sh"
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o errno_kept \
  "$INCLPROF_SRC/tests/programs/runtime/errno_kept.c" || { fail "build errno_kept"; exit 1; }
"$INCLPROF" record -o out -- ./errno_kept 1000000 >prof.out 2>prof.err
check_eq "recorded: errno 0 as main starts, kept after every call" "0 errno 0 as main started
errno changed after 0 of 1000000 calls" "$? $(cat prof.out)"
"$INCLPROF" export --format csv -o calls.csv out >/dev/null 2>&1
check_eq "recorded: the million calls are in the trace" 1000000 \
  "$(python3 "$INCLPROF_SRC/scripts/csv_query.py" calls.csv '^leaf$' calls)"
done_testing
