#!/bin/sh
# service_windows.sh - a timed window: `record --delay 3s --duration 4s`
# records from 3 s after start-up for 4 s.  The test asks `ctl status` when
# recording is on (it sends work only once the answer says so, and checks
# it still says so after) and the server counts its calls per phase: the
# trace holds exactly the calls made inside the window (300), none of the
# 100 before or the 50 after; report's header gives the window with its
# reasons (delay over, duration over), and export counts the same.  INCLPROF_DELAY with a bad value is
# named on stderr and ignored.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/service/drive.sh"
server_build || { fail "build phase_server"; exit 1; }

# status_is WORD: waits (20 s at most) until ctl status says recording WORD
status_is() {
  i=0
  while [ $i -lt 200 ]; do
    "$INCLPROF" ctl "$pid" status 2>&1 | grep -q "recording $1" && return 0
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}
server_start out --delay 3s --duration 4s
send work 100
check "off before the delay is over" status_is off
send phase window
check "on once the delay is over" status_is on
send work 300
check "still on after the window's calls" status_is on
check "off once the duration is over" status_is off
send phase after
send work 50
send counts
server_quit
check "the program counted 100 + 300 + 50 calls" \
  sh -c "grep -q '^start serve_request 100$' acks && grep -q '^window serve_request 300$' acks && grep -q '^after serve_request 50$' acks"
"$INCLPROF" report out >report.txt 2>&1
check_eq "serve_request: exactly the 300 calls made inside the window" 300 "$(calls report.txt serve_request)"
check "report's header gives the window and its reasons" \
  grep -q "^windows: .*recorded in 1 window only: [0-9.]* s to [0-9.]* s (delay over, duration over)$" report.txt
"$INCLPROF" export --format csv -o calls.csv out >/dev/null 2>&1
check_eq "export csv: the same 300 calls" 300 "$(awk -F, '$1 == "serve_request" { s += $5 } END { print s + 0 }' calls.csv)"

INCLPROF_OUTPUT=bad INCLPROF_DELAY=soon ./phase_server /dev/null acks2 >bad.out 2>bad.err
check_eq "a bad INCLPROF_DELAY: the program runs normally" 0 "$?"
check "a bad INCLPROF_DELAY is named on stderr" \
  grep -q "^inclprof: INCLPROF_DELAY='soon' is not a duration (like 500ms, 10s, 2m); ignored$" bad.err
done_testing
