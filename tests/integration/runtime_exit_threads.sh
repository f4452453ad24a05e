#!/bin/sh
# runtime_exit_threads.sh - a process ends (return from main, exit, _exit,
# exec, exit from another thread, exit from a signal handler) while 1, 8 or 64
# other instrumented threads are blocked on a condition variable, blocked in
# read(), spinning in instrumented code, in their first probe, or holding a
# mutex main tried to take.  Each run must end within its timeout with the
# program's own exit status and leave a readable trace whose trailer names the
# way out, with every thread's buffer written.  The one exception is 64
# threads spinning on a 2-core machine: their writes queue on the file's
# inode lock, so the final flush may reach its 2 s limit; then the trace must
# say how many threads it left out.
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
cc_plugin exit_threads "$INCLPROF_SRC/tests/programs/runtime/exit_threads.c" -O2 -pthread ||
  { fail "build exit_threads"; exit 1; }

# run HOW N STATE STATUS REASON
run() {
  rm -rf out
  INCLPROF_OUTPUT=out timeout 20 ./exit_threads "$1" "$2" "$3" >/dev/null 2>err
  rc=$?
  if [ "$rc" -eq 124 ]; then fail "$1 with $2 threads ($3): still running after 20 s"; return; fi
  check_eq "$1 with $2 threads ($3): exit status" "$4" "$rc"
  "$INCLPROF" info out >info 2>&1
  check_eq "$1 with $2 threads ($3): info reads the trace" 0 "$?"
  check "$1 with $2 threads ($3): trailer says $5" \
    grep -q "trailer:      clean shutdown, exit reason: $5;" info
  left=$(sed -n 's/^final flush:  gave up on \([0-9]*\) other threads.*/\1/p' info)
  if [ "$3" = spin ] && [ "$2" -gt "$(nproc)" ]; then
    check "$1 with $2 threads ($3): threads left out, if any, are at most $2" \
      test "${left:-0}" -le "$2"
  else
    check_eq "$1 with $2 threads ($3): no thread left unflushed" "" "$left"
  fi
  check "$1 with $2 threads ($3): nothing on stderr" test ! -s err
  if [ "$3" != first ]; then
    # every worker had made its first probe before the process ended
    threads=$(sed -n 's/^threads: *\([0-9]*\)$/\1/p' info)
    want=$(( $2 + 1 + $( [ "$1" = thread-exit ] && echo 1 || echo 0) ))
    check_eq "$1 with $2 threads ($3): threads in the trace" "$want" "$threads"
  fi
}

for how in return exit _exit exec; do
  case $how in return|exit) st=3; why=exit ;; _exit) st=4; why=_exit ;; exec) st=5; why=exec ;; esac
  for n in 1 8 64; do
    for state in cond read spin first mutex; do
      run "$how" "$n" "$state" "$st" "$why"
    done
  done
done
for state in cond read spin first mutex; do
  run thread-exit 8 "$state" 6 exit
  run signal-exit 8 "$state" 7 exit
done

# A worker blocked with its calls open: its entry is in the trace.
rm -rf out
INCLPROF_OUTPUT=out ./exit_threads exit 8 cond >/dev/null 2>&1
"$INCLPROF" export --format csv -o calls.csv out 2>/dev/null
check_eq "the 8 blocked workers' entries are recorded" 8 \
  "$(awk -F, '$1 == "block_on_cond" {print $5}' calls.csv)"
done_testing
