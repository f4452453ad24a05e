#!/bin/sh
# service_ctl.sh - `inclprof ctl` switches the recording of a running
# server (tests/programs/service/phase_server.c) from another process:
# started under `record --paused`, the calls it makes before `ctl start`,
# and after `ctl stop`, are not in the trace; the calls between are, exactly
# (the program counts them per phase itself).  `ctl status` says whether it
# records; `ctl` from another uid is refused (the socket's mode, and the
# runtime's SO_PEERCRED check when the socket is opened to everyone) and
# changes nothing; `ctl` names a pid that is not running and a process
# without the runtime in one line with exit status 1, and says of a process
# of its own uid that it may not follow through /proc to give -o DIR.
# Time while recording was off is no thread's: the functions open across
# the off period (the main thread's wait_command, the worker's worker_idle)
# read less than it.
# A fork child (tests/programs/service/fork_pair.c) binds a socket of its
# own and starts off like its parent; `ctl CHILD start` records the child's
# 500 calls and not one of the parent's 300.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/service/drive.sh"
server_build || { fail "build phase_server"; exit 1; }

server_start out --paused
check "the runtime bound its control socket out/$pid.ctl" test -S "out/$pid.ctl"
"$INCLPROF" ctl "$pid" status >status.txt 2>&1
check "ctl status: recording off under --paused" grep -q "recording off" status.txt
send work 100
"$INCLPROF" ctl "$pid" start >start.txt 2>&1
check_eq "ctl start: exit status 0" 0 "$?"
check "ctl start says recording is on" grep -q "^inclprof ctl: pid $pid: recording on" start.txt
send phase on
send work 300
"$INCLPROF" ctl "$pid" stop >stop.txt 2>&1
check_eq "ctl stop: exit status 0" 0 "$?"
check "ctl stop says recording is off" grep -q "recording off" stop.txt
send phase off
# off for 1.5 s while both threads wait: no function may take that time
sleep 1.5
send work 50

# another uid: refused by the socket's mode, then by the runtime itself
chmod 755 "$T_DIR" out
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null && [ "$(id -u)" = 0 ]; then
  setpriv --reuid=65534 --regid=65534 --clear-groups "$INCLPROF" ctl -o out "$pid" start >other.txt 2>&1
  check_eq "ctl from uid 65534: exit status 1" 1 "$?"
  check "ctl from uid 65534: permission denied, says whose process it is" \
    grep -q "permission denied: pid $pid belongs to uid 0" other.txt
  chmod 666 "out/$pid.ctl"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$INCLPROF" ctl -o out "$pid" start >other2.txt 2>&1
  check_eq "ctl from uid 65534 through an open socket: exit status 1" 1 "$?"
  check "the runtime refuses uid 65534 (SO_PEERCRED)" grep -q "refused: uid 65534 may not control" other2.txt
  "$INCLPROF" ctl "$pid" status >status2.txt 2>&1
  check "recording is still off after the refused start" grep -q "recording off" status2.txt
else
  echo "skip: not root or no setpriv: ctl from another uid is not tried"
fi

# a process of ctl's own uid whose /proc entries ctl may not follow (not
# dumpable, ctl without CAP_SYS_PTRACE): not "another user", and -o DIR
if [ "$(id -u)" = 0 ] && setpriv --bounding-set=-sys_ptrace --inh-caps=-sys_ptrace true 2>/dev/null; then
  python3 -c 'import ctypes, time; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0); open("nodump.up", "w"); time.sleep(60)' &
  nodump=$!
  i=0
  while [ ! -e nodump.up ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  setpriv --bounding-set=-sys_ptrace --inh-caps=-sys_ptrace "$INCLPROF" ctl "$nodump" status >nodump.txt 2>&1
  check_eq "ctl on a process of its uid it may not trace: exit status 1" 1 "$?"
  check "... says it runs as this user and names -o DIR (not another user)" \
    grep -q "permission denied .*though pid $nodump runs as this user .*-o DIR" nodump.txt
  kill "$nodump"
  wait "$nodump" 2>/dev/null
else
  echo "skip: not root or no setpriv: ctl without CAP_SYS_PTRACE is not tried"
fi

"$INCLPROF" ctl "$pid" mark "after stop" >mark.txt 2>&1
check_eq "ctl mark: exit status 0" 0 "$?"
send counts
server_quit
check_eq "record: the server's exit status" 0 "$?"
check "the socket is removed at exit" test ! -e "out/$pid.ctl"
check "the program counted 100 calls before start" grep -q '^start serve_request 100$' acks
check "the program counted 300 calls while recording" grep -q '^on serve_request 300$' acks
check "the program counted 50 calls after stop" grep -q '^off serve_request 50$' acks

"$INCLPROF" report out >report.txt 2>&1
check_eq "serve_request: exactly the 300 calls made while recording" 300 "$(calls report.txt serve_request)"
check "report's header names the window" \
  grep -q "^windows: .*recorded in 1 window only: .* (ctl start, ctl stop)" report.txt
# Elapsed Inclusive of wait_command in ms: well below the 1.5 s off
el() { awk -v f="$2" '$NF == f { v = $2; u = $3; print u == "s" ? v * 1000 : u == "ms" ? v : u == "us" ? v / 1000 : v / 1e6 }' "$1"; }
check "wait_command's time leaves out the 1.5 s off ($(el report.txt wait_command) ms)" \
  awk -v v="$(el report.txt wait_command)" 'BEGIN { exit !(v < 1000) }'
check "worker_idle's time leaves out the 1.5 s off ($(el report.txt worker_idle) ms)" \
  awk -v v="$(el report.txt worker_idle)" 'BEGIN { exit !(v < 1000) }'
"$INCLPROF" info out >info.txt 2>&1
check "info lists the window" grep -q "^windows: *1 recorded: .*(ctl start, ctl stop)" info.txt

"$INCLPROF" ctl "$pid" stop >gone.txt 2>&1
check_eq "ctl to a pid that ended: exit status 1" 1 "$?"
check "ctl says the pid is not running" grep -q "^inclprof ctl: pid $pid is not running$" gone.txt
sleep 30 &
plain=$!
"$INCLPROF" ctl "$plain" stop >plain.txt 2>&1
check_eq "ctl to a process without the runtime: exit status 1" 1 "$?"
check "ctl says it has no control socket" grep -q "has no control socket" plain.txt
kill "$plain"

cc_plugin fork_pair -O2 "$INCLPROF_SRC/tests/programs/service/fork_pair.c" || fail "build fork_pair"
"$INCLPROF" record --paused -o forks -- ./fork_pair >fork.txt 2>&1 &
rec=$!
i=0
while [ "$(ls forks 2>/dev/null | grep -c '\.ctl$')" -lt 2 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
check_eq "parent and fork child each bound a control socket" 2 "$(ls forks | grep -c '\.ctl$')"
parent=$(ls forks | sed -n 's/^\([0-9]*\)\.ctl$/\1/p' | sort -n | head -n1)
child=$(ls forks | sed -n 's/^\([0-9]*\)\.ctl$/\1/p' | sort -n | tail -n1)
"$INCLPROF" ctl "$child" status >child_status.txt 2>&1
check "the fork child starts off like its parent" grep -q "recording off" child_status.txt
"$INCLPROF" ctl "$child" start >/dev/null 2>&1
: >go
wait_file child-done && wait_file parent-done
: >quit
wait "$rec"
"$INCLPROF" report --process "$child" forks >child.txt 2>&1
check_eq "the child's trace: its 500 calls" 500 "$(calls child.txt work)"
"$INCLPROF" report --process "$parent" forks >parent.txt 2>&1
check_eq "the parent's trace: none of its 300 calls" 0 "$(calls parent.txt work)"
check "the parent's header says recording was off throughout" \
  grep -q "^windows: .*$parent.ipb: recording was off throughout" parent.txt
done_testing
