#!/bin/sh
# service_top.sh - `inclprof top PID` in a pseudo-terminal (script -qfc)
# while a server (tests/programs/service/phase_server.c) makes 400 000
# calls of serve_request: a refresh shows serve_request with a number of
# calls per second, the calls counted are never more than the program made,
# and at least one refresh sees some; `q` ends it with status 0 and the
# terminal restored (the alternate screen left, the cursor shown).  Given
# the trace directory instead of a pid, top finds the running process
# there, and ends by itself when the process ends.  `top --once` prints one
# plain table of the calls made during its interval, and top writing to a
# file prints each refresh as plain text: neither writes an escape code.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/service/drive.sh"
need script
server_build || { fail "build phase_server"; exit 1; }

server_start out
mkfifo keys
script -qfc "$INCLPROF top --interval 200ms --seconds 2s $pid" top.out <keys >/dev/null 2>&1 &
top=$!
exec 4>keys
for i in 1 2 3 4; do send work 100000; sleep 0.5; done
printf q >&4
exec 4>&-
wait "$top"
check_eq "top exits with status 0 on q" 0 "$?"
check "top shows its header" grep -q "inclprof top - pid $pid - recording on - live" top.out
rows=$(tr -d '\r' <top.out | awk '$NF == "serve_request" && $1 ~ /^[0-9]+$/ { print $2 }')
check "a refresh shows serve_request with its calls per second" test -n "$rows"
most=$(printf '%s\n' $rows | sort -n | tail -n1)
check "the most calls a refresh counts (${most:-0}) is some and at most the 400000 made" \
  test "${most:-0}" -gt 0 -a "${most:-0}" -le 400000
check "top leaves the alternate screen and shows the cursor" \
  sh -c "tr -d '\r' <top.out | grep -q \"$(printf '\033')\[?25h$(printf '\033')\[?1049l\""

(for i in $(seq 15); do send work 20000; sleep 0.2; done) &
work=$!
"$INCLPROF" top --once --interval 1s "$pid" >once.out 2>&1 </dev/null
check_eq "top --once exits with status 0" 0 "$?"
wait "$work"
n_sent=$((n_sent + 15))
esc=$(printf '\033')
check "top --once writes no escape code" sh -c "! grep -q '$esc' once.out"
check_eq "top --once prints one table" 1 "$(grep -c "^inclprof top - pid $pid - recording on - live - window " once.out)"
once=$(awk '$NF == "serve_request" && $1 ~ /^[0-9]+$/ { print $2 }' once.out)
check "top --once counts the calls of its interval (${once:-none}): some, at most the 300000 made" \
  test "${once:-0}" -gt 0 -a "${once:-0}" -le 300000

script -qfc "$INCLPROF top --interval 200ms out" top2.out </dev/null >/dev/null 2>&1 &
top=$!
"$INCLPROF" top --interval 200ms out >plain.out 2>&1 </dev/null &
plain=$!
sleep 1
server_quit
wait "$plain"
check "top writing to a file writes no escape code" sh -c "! grep -q '$esc' plain.out"
check "top writing to a file prints each refresh" \
  test "$(grep -c "^inclprof top - pid $pid - " plain.out)" -ge 2
check "top writing to a file says when the process ended" \
  grep -q "inclprof top: pid $pid has ended" plain.out
i=0
while kill -0 "$top" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "top DIR ends by itself when the process ends" sh -c "! kill -0 $top 2>/dev/null"
check "top DIR found the running process and says it ended" \
  grep -q "inclprof top: pid $pid has ended" top2.out
done_testing
