#!/bin/sh
# service_field.sh - the service workflow on a real server: redis-server as
# `make field` built it with the plugin (build/field/redis/plugin; skipped
# with a message when that build is not there - this test does not build
# it).  Started under `record --paused`, warmed up with 500 SETs, then
# `inclprof ctl PID start`, exactly 1000 SETs (redis-benchmark -c 1), `ctl
# stop`, 700 more, `ctl flush`: the live report counts exactly 1000 calls of
# setCommand and says the server is still running; after SHUTDOWN the trace
# still counts 1000.
. "$INCLPROF_SRC/tests/lib.sh"
redis=${INCLPROF_FIELD_DIR:-$INCLPROF_SRC/build/field}/redis/plugin/src/redis-server
if [ ! -x "$redis" ] || ! command -v redis-benchmark >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "skip: no redis-server built with the plugin at $redis (make field builds it), or no redis-benchmark/redis-cli"
  exit 0
fi
port=$((30000 + $$ % 10000))
"$INCLPROF" record --paused -o out -- "$redis" --port "$port" --save "" --appendonly no --dir "$PWD" >server.log 2>&1 &
rec=$!
i=0
until redis-cli -p "$port" ping >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -gt 200 ] && { fail "redis-server did not start: $(tail -3 server.log)"; kill "$rec"; exit 1; }
  sleep 0.1
done
pid=$(ls out | sed -n 's/^\([0-9]*\)\.ipb$/\1/p' | head -n1)
sets() { redis-benchmark -p "$port" -c 1 -n "$1" -t set -q >/dev/null 2>&1; }
sets 500
"$INCLPROF" ctl "$pid" start >start.txt 2>&1
check_eq "ctl start: exit status 0" 0 "$?"
sets 1000
"$INCLPROF" ctl "$pid" stop >stop.txt 2>&1
check_eq "ctl stop: exit status 0" 0 "$?"
sets 700
"$INCLPROF" ctl "$pid" flush >flush.txt 2>&1
check_eq "ctl flush: exit status 0" 0 "$?"
"$INCLPROF" report out >live.txt 2>&1
calls() { awk -v f="$2" '$NF == f { print $1; found = 1 } END { if (!found) print 0 }' "$1"; }
check_eq "live report: exactly the 1000 SETs of the window" 1000 "$(calls live.txt setCommand)"
check "live report: redis-server is still running" grep -q "pid $pid is still running" live.txt
redis-cli -p "$port" shutdown nosave >/dev/null 2>&1
wait "$rec"
"$INCLPROF" report out >end.txt 2>&1
check_eq "after shutdown: still 1000 SETs" 1000 "$(calls end.txt setCommand)"
done_testing
