#!/bin/sh
# runtime_nonroot_kevents.sh - a program that does not run as root gets the
# same Application time and wait breakdown as one recorded as root, the two
# supported ways: as user nobody through `inclprof record` with
# inclprof-perfmon beside it (a copy of the build's command, runtime and
# helper, the helper's file capabilities set), and with `inclprof record
# --user nobody` run as root.  tests/programs/runtime/nonroot_wait.c
# measures its own sleeps: 40 ms in wait_a_bit() on the main thread, 30 ms
# in thread_wait() on a second thread, 20 ms in child_wait() in a forked
# child; each function's Off-CPU blocked time is within 5% of its sleep and
# wait_a_bit has no Application time, as when recorded as root.  Every file
# of the recording belongs to nobody.  Without a usable helper the run
# falls back to no detection, and the note names what is missing and the
# command that gives it.  The runtime does not use a grant server of
# another user, and a `record --user` server refuses another user.  Skipped
# where it cannot run (not root, no setpriv or setcap, no tracefs).
# timing: the sleeps are compared within one run with a 5% margin.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! command -v setcap >/dev/null; then
  echo "skip: needs root, setpriv and setcap to run a program as user nobody"
  exit 0
fi
if ! [ -e /sys/kernel/tracing/events/raw_syscalls/sys_enter/id ]; then
  echo "skip: tracefs is not mounted at /sys/kernel/tracing"
  exit 0
fi
gid=$(id -g nobody)
as_nobody() { setpriv --reuid=nobody --regid="$gid" --clear-groups "$@"; }
chmod 755 "$T_DIR"
mkdir bin u && chown nobody u
cp "$INCLPROF" "$INCLPROF_LIBDIR/libinclprof.so" "$INCLPROF_LIBDIR/inclprof-perfmon" bin/
setcap cap_perfmon,cap_dac_read_search=p bin/inclprof-perfmon || { fail "setcap on the copy"; exit 1; }
cc_plugin nw "$INCLPROF_SRC/tests/programs/runtime/nonroot_wait.c" -O2 -pthread ||
  { fail "compile with the plugin"; exit 1; }
./nw >plain.txt
check_eq "the plain program measures three sleeps" 3 "$(wc -l <plain.txt)"

# col CSV FUNCTION COLUMN
col() { csv_rows "$1" function "$3" | awk -F'\t' -v f="$2" '$1 == f { print $2 }'; }
# within5 DESC TRUTH VALUE: |VALUE - TRUTH| <= 5% of TRUTH
within5() {
  if awk -v t="$2" -v v="$3" 'BEGIN { d = v - t; if (d < 0) d = -d; exit !(t > 0 && d <= 0.05 * t) }'; then
    ok "$1 ($3 ns, truth $2 ns)"
  else fail "$1: '$3' ns is not within 5% of $2 ns"; fi
}
# checks HOW DIR TRUTH: the kevents values of a recording
checks() {
  "$INCLPROF" info "$2" >"${2#u/}.info" 2>&1
  check "$1: transitions kevents" grep -q '^transitions: *kevents' "${2#u/}.info"
  check_eq "$1: every thread has its counter" "" "$(grep 'without a counter' "${2#u/}.info")"
  "$INCLPROF" export -f csv -o "${2#u/}.csv" "$2" 2>/dev/null
  for f in main:wait_a_bit thread:thread_wait child:child_wait; do
    within5 "$1: ${f#*:}'s Off-CPU blocked = its sleep" "$(awk -v k="${f%%:*}" '$1 == k { print $2 }' "$3")" \
      "$(col "${2#u/}.csv" "${f#*:}" offcpu_blocked_inclusive_ns)"
  done
  app=$(col "${2#u/}.csv" wait_a_bit application_inclusive_ns)
  check "$1: wait_a_bit has no Application time (${app:-?} ns)" \
    awk -v a="${app:-x}" 'BEGIN { exit !(a ~ /^[0-9]+$/ && a < 100000) }'
}

"$INCLPROF" record -o out-root -- ./nw >root.txt 2>/dev/null
checks "as root" out-root root.txt

as_nobody bin/inclprof record -o u/out-helper -- ./nw >helper.txt 2>helper.err
check_eq "as nobody through inclprof-perfmon: the program's exit status" 0 "$?"
checks "as nobody through inclprof-perfmon" u/out-helper helper.txt
check "as nobody through inclprof-perfmon: the note says who opened the events" \
  grep -q "opened for this user by the recording's grant server" out-helper.info

"$INCLPROF" record --user nobody -o u/out-user -- ./nw >user.txt 2>user.err
check_eq "record --user nobody: the program's exit status" 0 "$?"
checks "record --user nobody" u/out-user user.txt
check_eq "record --user nobody: the program ran as nobody" "nobody" \
  "$(stat -c %U u/out-user/*.ipb | sort -u)"
check_eq "record --user nobody: no file of the recording belongs to root" "" \
  "$(find u -user root)"
check_eq "record --user nobody: HOME, USER and LOGNAME are nobody's" \
  "$(getent passwd nobody | cut -d: -f6) nobody nobody" \
  "$("$INCLPROF" record --user nobody -o u/out-env --transitions none -- sh -c 'echo $HOME $USER $LOGNAME' 2>/dev/null)"

# Without a helper that has its capabilities: no detection, and why.
as_nobody "$INCLPROF" record -o u/out-none -- ./nw >none.txt 2>/dev/null
"$INCLPROF" info u/out-none >none.info 2>&1
check "without the helper: no detection" grep -q '^transitions: *none' none.info
check "without the helper: the note names the permission" \
  grep -q "kernel.perf_event_paranoid is [0-9]* and this process has neither root nor CAP_PERFMON" none.info
check "without the helper: the note gives the command" \
  grep -q "sudo inclprof record --user 65534 -- PROG" none.info
check_eq "without the helper: the note does not say tracefs is not mounted" "" \
  "$(grep 'not mounted' none.info)"

# Another user's server is not used; a --user server refuses another user.
mkdir ub && chown 54321 ub
setpriv --reuid=54321 --regid=54321 --clear-groups bin/inclprof-perfmon sh -c \
  'echo "$INCLPROF_GRANT" >ub/name; i=0
   while [ ! -e ub/done ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done' 2>/dev/null &
other=$!
for _ in $(seq 600); do [ -s ub/name ] && break; sleep 0.05; done
mkdir u/out-squat && chown nobody u/out-squat
as_nobody env INCLPROF_GRANT="$(cat ub/name)" INCLPROF_OUTPUT=u/out-squat \
  LD_PRELOAD="$T_DIR/bin/libinclprof.so" ./nw >/dev/null
check "a grant server of another user is not used" sh -c \
  "'$INCLPROF' info u/out-squat | grep -q 'runs as another user: not used'"
touch ub/done
wait "$other"
gcc -O2 -pthread -I"$INCLPROF_SRC/include/inclprof" -o gc "$INCLPROF_SRC/tests/programs/runtime/grant_client.c"
# (The servers under test stay up until the clients have asked, at most a
# minute: a loaded machine may take seconds to start them.)
"$INCLPROF" record --user nobody -o u/out-b -- sh -c 'echo "$INCLPROF_GRANT" >u/name; i=0
  while [ ! -e u/done ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done' >/dev/null 2>&1 &
server=$!
for _ in $(seq 600); do [ -s u/name ] && break; sleep 0.05; done
setpriv --reuid=54321 --regid=54321 --clear-groups ./gc self "$(cat u/name)" >b.txt 2>&1
check "record --user nobody's server refuses user 54321" \
  grep -q '^status 3: the sender is not the recording' b.txt
touch u/done
wait "$server"
done_testing
