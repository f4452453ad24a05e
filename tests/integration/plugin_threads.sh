#!/bin/sh
# plugin_threads.sh - 8 threads recursing, fork, vfork + exec,
# and an instrumented signal handler firing during probes: every thread's
# events nest correctly and nothing crashes.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"
export LOGRT_TID=1

for O in -O0 -O2; do
  pcc th "$PP/threads.c" $O -pthread || fail "threads.c $O compiles"
  out=$(run log ./th); rc=$?
  check_eq "$O program succeeds" "0 0" "$rc $out"
  check "$O every thread balanced (incl. handler frames)" balanced log
  check_eq "$O 8 worker threads plus main and the fork child" 10 "$(awk '$2=="E"{print $1}' log | sort -u | wc -l)"
  workers=$(awk '$2=="E" && $3=="worker"{w[$1]=1} $2=="E" && $3=="recurse" && ($1 in w){n++} END{print n}' log)
  child=$(awk '$2=="E" && $3=="do_fork"{p=$1} $2=="E" && $3=="recurse" && p && $1!=p {n[$1]++} END{for (t in n) print n[t]}' log)
  if [ "$O" = -O0 ]; then
    check_eq "$O workers: 8 x 200 x 21 recursion entries" 33600 "$workers"
    check_eq "$O fork child: recurse(3) entered 4 times in its own thread id" 4 "$child"
  else # -O2 turns the recursion into a loop and hoists the pure call
    check "$O workers entered recurse" test "$workers" -ge 8
    check "$O fork child entered recurse in its own thread id" test "${child:-0}" -ge 1
  fi
  check "$O the signal handler ran instrumented" grep -q ' E on_alarm$' log
  check_eq "$O vfork function has no call-site probes" "" \
    "$(awk '$2=="E" && $3=="do_vfork"{f=1; next} $2=="X" && $3=="do_vfork"{f=0} f && $2 ~ /^[CR]$/' log)"
done
done_testing
