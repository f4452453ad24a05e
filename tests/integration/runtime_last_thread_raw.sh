#!/bin/sh
# runtime_last_thread_raw.sh - the runtime's own threads (writer, control)
# never keep a process alive whose only program thread ends without libc
# (tests/programs/runtime/last_thread_raw.c): a raw SYS_exit, seccomp's
# strict mode and a SECCOMP_RET_KILL_THREAD filter each end the process with
# the status of a plain run (exit 3, killed by SIGKILL, by SIGSYS), the same
# output, within a bound, and a trace holding every work() call and a
# Trailer that says how the thread ended.
# timing: a run that hangs is killed after 20 s; the runtime notices the
# end within 100 ms: a run counts as ended in time under 2 s (it takes
# about 100 ms).
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
src="$INCLPROF_SRC/tests/programs/runtime/last_thread_raw.c"
gcc -O2 -o raw_plain "$src" || { fail "build last_thread_raw"; exit 1; }
cc_plugin raw_rec "$src" -O2 || { fail "build last_thread_raw with the plugin"; exit 1; }
now_ms() { date +%s%3N; }

# run MODE STATUS REASON [N]: the plain and the recorded run (N work()
# calls, 1000 by default; $env: settings of the recorded run) end with
# STATUS and the same output; the trace's Trailer gives REASON
run() {
  n=${4:-1000}
  timeout -s KILL 20 ./raw_plain "$1" $n >plain.out 2>plain.err
  plain_rc=$?
  t0=$(now_ms)
  env $env INCLPROF_OUTPUT=out-$1 timeout -s KILL 20 ./raw_rec "$1" $n >prof.out 2>prof.err
  rc=$?
  t1=$(now_ms)
  check_eq "$1: the plain run's status" "$2" "$plain_rc"
  check_eq "$1: the program's status" "$plain_rc" "$rc"
  check_eq "$1: the program's output" "work $n" "$(cat prof.out)"
  check "$1: ended in time ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 2000
  check_eq "$1: stderr as plain (the shell's line on a signal)" "$(cat plain.err)" "$(cat prof.err)"
  f=$(ls out-$1/*.ipb)
  "$INCLPROF" export --format csv -o $1.csv "$f" >/dev/null 2>&1
  check_eq "$1: every work() call recorded" $n "$(q $1.csv '^work$' calls)"
  "$INCLPROF" info "$f" >info 2>&1
  check "$1: the Trailer says how the thread ended" \
    grep -q "^trailer:      clean shutdown, exit reason: $3;" info
}

env=
run exit 3 "last thread: exit 3"
run strict 137 "last thread: signal 9"
run kill-thread 159 "last thread: signal 31"

# without a control thread, the writer (started by the first full buffer)
# finds the end
env="INCLPROF_CTL=0 INCLPROF_WRITER=thread"
rm -rf out-exit
run exit 3 "last thread: exit 3" 1000000
"$INCLPROF" info out-exit/*.ipb >info 2>&1
check "writer: the writer thread ran" grep -q '^writer: *[1-9][0-9]* full buffers written by the runtime' info

# inclprof record gives the program's status
t0=$(now_ms)
timeout -s KILL 20 "$INCLPROF" record -o rec-out -- ./raw_rec strict 10 >rec.out 2>rec.err
rc=$?
t1=$(now_ms)
check_eq "record: the program's status" 137 "$rc"
check "record: ended in time ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 2000
done_testing
