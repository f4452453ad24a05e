#!/bin/sh
# service_ctl_young.sh - `inclprof ctl PARENT stop --children` reaches a fork
# child whose runtime has not yet bound its control socket (tests/programs/
# service/young_child.c: the worker stops itself as fork returns in it, so
# its socket is not bound when ctl looks; the parent continues it once ctl
# has run 25 ms, or has ended).  ctl waits for the worker and stops it
# (before, it passed it over as having no socket: the worker recorded all
# its 2000 calls); the worker's trace ends with recording switched off by
# ctl and holds few of them.  In the same command a zombie is named as ended,
# and a child that execs a program without instrumented code (the runtime
# preloaded, no socket ever) is named once its 50 ms are over: ctl exits 0,
# well within a second.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/service/drive.sh"
cc_plugin young_child -O2 "$INCLPROF_SRC/tests/programs/service/young_child.c" || { fail "build young_child"; exit 1; }
"$INCLPROF" record -o out -- ./young_child "$INCLPROF" >record.txt 2>&1
check_eq "record: the program's exit status" 0 "$?"
read -r exiter sleeper worker status took <pids
check_eq "ctl PARENT stop --children: exit status 0" 0 "$status"
check "ctl stopped the worker" grep -q "^inclprof ctl: pid $worker: recording off" ctl.out
# A machine too busy to start ctl within 25 ms has continued the worker
# before ctl looked at it: then there was nothing to wait for.
if grep -q "^inclprof ctl: pid $worker: recording off (its control socket waited for [0-9]* ms" ctl.out; then
  ok "ctl says it waited for the worker's socket"
else
  echo "ok - ctl's answer names no wait (a machine too busy to start ctl within 25 ms: the worker had bound its socket) # SKIP"
fi
check "the worker's trace: recording switched off by ctl" \
  sh -c "'$INCLPROF' info out/$worker.ipb | grep -q '^windows: .*(start, ctl stop)'"
"$INCLPROF" report --process "$worker" out >worker.txt 2>&1
n=$(calls worker.txt work)
check "the worker's trace holds few of its 2000 calls (it was stopped early): $n" test "$n" -lt 1000
check "the zombie child is named as ended" grep -q "^inclprof ctl: pid $exiter: passed over: it has ended" ctl.err
check "the child without instrumented code is named after its 50 ms" \
  grep -q "^inclprof ctl: pid $sleeper: passed over: no control socket 50 ms after its start though it has the inclprof runtime" ctl.err
check "ctl took well under a second: $took ms" test "$took" -lt 1000
done_testing
