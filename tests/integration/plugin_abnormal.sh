#!/bin/sh
# plugin_abnormal.sh - longjmp, exit() from deep frames and
# pthread_exit leave frames without exit probes (the runtime reconciles them);
# the programs behave as without the plugin and the unit still unregisters.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"
export LOGRT_TID=1
ev() { awk '$2 ~ /^[EXCRDL]$/ && $3 != "strcmp" {print $2, $3}' log | paste -sd'|' -; }

for O in -O0 -O2; do
  pcc ab "$PP/abnormal.c" $O -pthread || fail "abnormal.c $O compiles"
  run log ./ab longjmp; rc=$?
  check_eq "$O longjmp: program result" 0 "$rc"
  check_eq "$O longjmp: the jumped-over frames have no exit, the rest do; setjmp lands twice" \
    "E main|E do_longjmp|L do_longjmp|E jump_deep|E jump_deep|E jump_deep|C longjmp|L do_longjmp|X do_longjmp|X main|D $PP/abnormal.c" "$(ev)"
  run log ./ab exit; rc=$?
  check_eq "$O exit(): exit status kept" 3 "$rc"
  check_eq "$O exit(): exit is a call without return, destructor unregisters" \
    "E main|E exit_deep|E exit_deep|E exit_deep|C exit|D $PP/abnormal.c" "$(ev)"
  run log ./ab thread; rc=$?
  check_eq "$O pthread_exit: program result" 0 "$rc"
  check_eq "$O pthread_exit: thread frames open, call without return" \
    "E thread_main|E thread_inner|C pthread_exit" \
    "$(awk '$3=="thread_main" || $3=="thread_inner" || $3=="pthread_exit" {print $2, $3}' log | paste -sd'|' -)"
done
done_testing
