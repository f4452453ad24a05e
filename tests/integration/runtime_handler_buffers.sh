#!/bin/sh
# runtime_handler_buffers.sh - a signal handler that fills buffers
# (tests/programs/runtime/long_handler.c: 50 handler calls of 20 000 calls
# each, 40 000 events, more than two buffers per call): each full buffer
# goes to the writer thread from inside the handler, so the trace holds
# every call the program counted and drops nothing.  Where no writer can
# take it (INCLPROF_WRITER=inline, or the handler fills the process's first
# buffer, before the writer thread exists), the events beyond the buffer's
# headroom are dropped, and every missing call is among the events the
# Trailer counts as dropped.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
check "compile with the plugin" gcc -O2 -fplugin="$INCLPROF_PLUGIN" \
  "$INCLPROF_SRC/tests/programs/runtime/long_handler.c" -o long_handler
# dropped DIR: the events the trace's Trailer counts as dropped
dropped() { "$INCLPROF" info "$1" 2>/dev/null | sed -n 's/^trailer:.* \([0-9]*\) dropped.*/\1/p' | head -n1; }
./long_handler warm 5000 20000 >plain.out
check_eq "plain: the program's counts" "tick 25000
work 1000000" "$(cat plain.out)"
for transitions in none kevents; do
  rm -rf out && "$INCLPROF" record -o out --transitions $transitions -- ./long_handler warm 5000 20000 >rec.out 2>rec.err
  check_eq "$transitions: the program's status and output recorded" "0 $(cat plain.out)" "$? $(cat rec.out)"
  "$INCLPROF" export --format csv -o p.csv out 2>/dev/null
  check_eq "$transitions: the trace holds every work() call the handler made" 1000000 "$(q p.csv '^work$' calls)"
  check_eq "$transitions: and every tick()" 25000 "$(q p.csv '^tick$' calls)"
  check_eq "$transitions: nothing dropped" 0 "$(dropped out)"
  # 2.05 M events, at most 16 640 a buffer: 124 buffers or more, the first
  # one encoded by the program's thread (it starts the writer)
  by_writer=$("$INCLPROF" info out 2>/dev/null | sed -n 's/^writer: *\([0-9]*\) full buffers written by the runtime.s writer thread.*/\1/p')
  check "$transitions: the handlers' full buffers went to the writer thread ($by_writer buffers)" test "${by_writer:-0}" -ge 120
done
for how in inline cold; do
  rm -rf out
  if [ $how = inline ]; then
    INCLPROF_WRITER=inline "$INCLPROF" record -o out -- ./long_handler warm 5000 20000 >rec.out 2>rec.err
  else
    "$INCLPROF" record -o out -- ./long_handler cold 5000 20000 >rec.out 2>rec.err
  fi
  "$INCLPROF" export --format csv -o p.csv out 2>/dev/null
  made=$(sed -n 's/^work //p' rec.out) calls=$(q p.csv '^work$' calls) d=$(dropped out)
  check "$how: no writer to take a handler's buffer: calls lost ($calls of $made in the trace), each among the $d events counted as dropped" \
    test "${calls:-0}" -lt "$made" -a $((2 * (made - ${calls:-0}))) -le "${d:-0}"
done
done_testing
