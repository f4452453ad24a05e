#!/bin/sh
# service_ctl_children.sh - `inclprof ctl PID start|stop --children` reaches
# the processes a server forked before it (tests/programs/service/
# fork_tree.c: a parent, two children, a grandchild, each counting its own
# calls of work(), and a child that execs /bin/sleep with no instrumented
# code).  Started under `record --paused`, all four are switched on by one
# `ctl PARENT start --children` (the sleeper named and passed over), run
# their counts, are switched off by one `ctl --children PARENT stop`, run 50
# calls more: each trace holds exactly its process's own count.  A process
# tree with no control socket at all is one line and exit status 1.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/service/drive.sh"
cc_plugin fork_tree -O2 "$INCLPROF_SRC/tests/programs/service/fork_tree.c" || { fail "build fork_tree"; exit 1; }
"$INCLPROF" record --paused -o out -- ./fork_tree >record.txt 2>&1 &
rec=$!
for role in parent child1 child2 grandchild; do wait_file "pid-$role"; done
i=0
while [ "$(ls out 2>/dev/null | grep -c '\.ctl$')" -lt 4 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
check_eq "the four processes bound a control socket each" 4 "$(ls out | grep -c '\.ctl$')"
parent=$(cat pid-parent)
"$INCLPROF" ctl "$parent" start --children >start.txt 2>start.err
check_eq "ctl PARENT start --children: exit status 0" 0 "$?"
check_eq "ctl start --children: four processes say recording is on" 4 "$(grep -c ': recording on' start.txt)"
for role in parent child1 child2 grandchild; do
  check "ctl start --children reached the $role" grep -q "^inclprof ctl: pid $(cat pid-$role): recording on" start.txt
done
sleeper=$(pgrep -P "$parent" -x sleep)
check "the sleeper (no instrumented code) is named and passed over" \
  grep -q "^inclprof ctl: pid $sleeper: passed over: no control socket" start.err
: >go
for role in parent child1 child2 grandchild; do wait_file "done-$role"; done
"$INCLPROF" ctl --children "$parent" stop >stop.txt 2>&1
check_eq "ctl --children PARENT stop: exit status 0" 0 "$?"
check_eq "ctl --children stop: four processes say recording is off" 4 "$(grep -c ': recording off' stop.txt)"
: >more
for role in parent child1 child2 grandchild; do wait_file "after-$role"; done
: >quit
wait "$rec"
check_eq "record: the program's exit status" 0 "$?"
for pair in parent:100 child1:200 child2:300 grandchild:400; do
  role=${pair%:*} want=${pair#*:}
  "$INCLPROF" report --process "$(cat pid-$role)" out >$role.txt 2>&1
  check_eq "the $role's trace: its $want calls made while on" "$want" "$(calls $role.txt work)"
done

sleep 30 &
plain=$!
"$INCLPROF" ctl "$plain" status --children >none.txt 2>&1
check_eq "ctl --children on a tree without the runtime: exit status 1" 1 "$?"
check "ctl --children says no process of the tree has a control socket" \
  grep -q "neither pid $plain nor any of its 0 descendants has a control socket" none.txt
kill "$plain"
done_testing
