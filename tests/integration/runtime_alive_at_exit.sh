#!/bin/sh
# runtime_alive_at_exit.sh - threads still alive when the process exits (a
# server's background threads, tests/programs/runtime/alive_at_exit.c) keep
# the names they gave themselves after their last flush, and live until the
# exit: each thread's Elapsed is the lifetime the program measured itself
# (from its first instrumented call to exit), not the few microseconds up to
# its last event; report says in one line that they were closed at the exit.
# The same with exit, _exit (from the main thread) and a fatal signal.
. "$INCLPROF_SRC/tests/lib.sh"
cc_plugin alive -O2 "$INCLPROF_SRC/tests/programs/runtime/alive_at_exit.c" -pthread ||
  { fail "build alive_at_exit"; exit 1; }
for how in exit _exit SIGTERM; do
  INCLPROF_OUTPUT=out-$how ./alive 200 $how >truth.txt
  rc=$?
  want=0; [ "$how" = SIGTERM ] && want=143
  check_eq "$how: the program's status" "$want" "$rc"
  "$INCLPROF" report --by thread out-$how >threads.txt 2>&1
  for name in bio_close_file bio_aof bio_lazy_free; do
    truth=$(awk -v n="$name" '$1 == "thread" && $2 == n { print $3 }' truth.txt)
    # the kernel keeps 15 bytes of a name
    short=$(printf '%.15s' "$name")
    row=$(grep "($short)\$" threads.txt)
    check "$how: thread $short is listed under the name it gave itself" test -n "$row"
    # Elapsed Inclusive in ms (column 2, its unit in column 3)
    got=$(printf '%s\n' "$row" | awk '{ v = $2; u = $3; print u == "s" ? v * 1000 : u == "ms" ? v : u == "us" ? v / 1000 : v / 1e6 }')
    # The thread's first probe comes a few microseconds after the program's
    # clock read, the exit's tick a little after the program's last one.
    check_near "$how: thread $short lived until the exit (Elapsed ms ~ the program's own measure)" \
      "$truth" "${got:-0}" "$(awk -v t="$truth" 'BEGIN { print t * 0.05 + 2 }')"
  done
  check_eq "$how: only the main thread has the program's name" 1 "$(grep -c '(alive)$' threads.txt)"
  check_eq "$how: report says once that threads were alive at exit" 1 \
    "$(grep -c '3 threads were alive when the process ended' threads.txt)"
done
done_testing
