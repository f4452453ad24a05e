#!/bin/sh
# runtime_last_thread.sh - the runtime's own threads (writer, control) never
# keep a process alive (tests/programs/runtime/last_thread.c): main calling
# pthread_exit while a worker finishes, and a child forked by a worker thread
# whose only thread then returns, both end as in a plain run, with their
# traces complete (every work() call counted, a clean Trailer); with main
# gone, SIGTERM reaches the program's handler, or its default action kills
# the process, as in a plain run.
# timing: a run that hangs is killed after 20 s; a run counts as ended in
# time under 5 s (it takes about 50 ms).
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
src="$INCLPROF_SRC/tests/programs/runtime/last_thread.c"
gcc -O2 -pthread -o last_plain "$src" || { fail "build last_thread"; exit 1; }
cc_plugin last_rec "$src" -O2 -pthread || { fail "build last_thread with the plugin"; exit 1; }
now_ms() { date +%s%3N; }

# run NAME MODE N: runs both, compares status and output, and the time taken
run() {
  timeout -s KILL 20 ./last_plain "$2" "$3" >plain.out 2>&1
  plain_rc=$?
  t0=$(now_ms)
  INCLPROF_OUTPUT=out-$1 timeout -s KILL 20 ./last_rec "$2" "$3" >prof.out 2>prof.err
  rc=$?
  t1=$(now_ms)
  check_eq "$1: the program's status" "$plain_rc" "$rc"
  check_eq "$1: the program's output" "$(cat plain.out)" "$(cat prof.out)"
  check "$1: ended in time ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 5000
  check_eq "$1: nothing on stderr" "" "$(cat prof.err)"
}

run main-exit main-exit 1000
check_eq "main-exit: plain output" "work 1001" "$(cat plain.out)"
f=$(ls out-main-exit/*.ipb)
"$INCLPROF" export --format csv -o m.csv "$f" >/dev/null 2>&1
check_eq "main-exit: every work() call recorded" 1001 "$(q m.csv '^work$' calls)"
"$INCLPROF" info "$f" >info 2>&1
check "main-exit: the trace ends cleanly at exit" \
  grep -q '^trailer:      clean shutdown, exit reason: exit;' info

run fork-worker fork-worker 1000
check_eq "fork-worker: plain output" "child work 1000
child ended: status 0" "$(cat plain.out)"
check_eq "fork-worker: two traces" 2 "$(ls out-fork-worker | grep -c '\.ipb$')"
child=$(for f in out-fork-worker/*.ipb; do
  "$INCLPROF" info "$f" 2>/dev/null | grep -q 'fork child of' && echo "$f"; done)
"$INCLPROF" export --format csv -o c.csv "$child" >/dev/null 2>&1
check_eq "fork-worker: the child's work() calls recorded" 1000 "$(q c.csv '^work$' calls)"
"$INCLPROF" info "$child" >info 2>&1
check "fork-worker: the child's trace ends cleanly at exit" \
  grep -q '^trailer:      clean shutdown, exit reason: exit;' info

# signal MODE: the process with main gone gets SIGTERM once it says ready
# (waited for up to a minute: a loaded machine may take seconds to start it)
signal() {
  for who in plain rec; do
    # (the earlier run's output goes first: the shell truncates it only in
    # the started child, which a loaded machine may not have run yet)
    rm -f $who.out
    if [ $who = plain ]; then ./last_plain "$1" 10 >$who.out 2>&1 &
    else INCLPROF_OUTPUT=out-$1 ./last_rec "$1" 10 >$who.out 2>&1 &
    fi
    pid=$!
    i=0
    while ! grep -q ready $who.out && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
    kill -TERM $pid
    t0=$(now_ms)
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    t1=$(now_ms)
    kill -KILL $pid 2>/dev/null
    wait $pid
    eval ${who}_rc=$?
    eval ${who}_ms=$((t1 - t0))
  done
  check_eq "$1: the program's status" "$plain_rc" "$rec_rc"
  check_eq "$1: the program's output" "$(cat plain.out)" "$(cat rec.out)"
  check "$1: ended in time after SIGTERM ($rec_ms ms)" test "$rec_ms" -lt 5000
}
signal sigterm
check_eq "sigterm: the handler ran" "ready
handler ran, work 11" "$(cat plain.out)"
"$INCLPROF" export --format csv -o s.csv out-sigterm >/dev/null 2>&1
check_eq "sigterm: every work() call and the handler recorded" "11 1" \
  "$(q s.csv '^work$' calls) $(q s.csv '^on_term$' calls)"
signal sigterm-default
check_eq "sigterm-default: killed by SIGTERM" 143 "$plain_rc"
done_testing
