#!/bin/sh
# service_live.sh - reading the trace of a server while it runs
# (tests/programs/service/phase_server.c).  Its threads' events stay in
# their buffers until one fills: a report before `inclprof ctl PID flush`
# sees none of the 200 calls made, a report after it all 200, and says the
# process is still running (exit status 0, no damage); 300 calls more and a
# second flush give 500 (the worker, idle in worker_idle at each flush, had
# its events taken by the flush).  With `record --flush-every 200ms` the
# calls appear without a ctl command.  At the end the trace holds all of them.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/service/drive.sh"
server_build || { fail "build phase_server"; exit 1; }

server_start out
send work 200
"$INCLPROF" report out >before.txt 2>&1
check_eq "before a flush the 200 calls are still in the threads' buffers" 0 "$(calls before.txt serve_request)"
"$INCLPROF" ctl "$pid" flush >flush.txt 2>&1
check_eq "ctl flush: exit status 0" 0 "$?"
check "ctl flush names the threads it wrote" grep -q "^inclprof ctl: pid $pid: flushed [2-9] threads$" flush.txt
"$INCLPROF" report out >live.txt 2>&1
check_eq "report of the running process: exit status 0" 0 "$?"
check_eq "after the flush: all 200 calls" 200 "$(calls live.txt serve_request)"
check "report says the process is still running" \
  grep -q "^warning: .*no trailer yet: pid $pid is still running" live.txt
check "report does not call it killed or damaged" sh -c '! grep -q "killed\|damage" live.txt'
send work 300
"$INCLPROF" ctl "$pid" flush >/dev/null 2>&1
"$INCLPROF" report out >live2.txt 2>&1
check_eq "after a second flush: 500 calls" 500 "$(calls live2.txt serve_request)"
"$INCLPROF" info out >info.txt 2>&1
check "info says still running" grep -q "^trailer: *no trailer yet: pid $pid is still running" info.txt
"$INCLPROF" export --format csv -o live.csv out >/dev/null 2>&1
check_eq "export of the running process: exit status 0" 0 "$?"
server_quit
"$INCLPROF" report out >end.txt 2>&1
check_eq "at the end: 500 calls" 500 "$(calls end.txt serve_request)"

server_start every --flush-every 200ms
send work 70
i=0
while [ $i -lt 100 ]; do
  "$INCLPROF" report every >every.txt 2>&1
  [ "$(calls every.txt serve_request)" = 70 ] && break
  sleep 0.1
  i=$((i + 1))
done
check_eq "--flush-every 200ms: the 70 calls appear without a ctl command" 70 "$(calls every.txt serve_request)"
server_quit
done_testing
