#!/bin/sh
# runtime_grant_refusals.sh - the grant server (inclprof-perfmon, a copy of
# the build's with its file capabilities set) gives a thread's kernel events
# only to the recording's own processes, as two unprivileged users see it
# (A: nobody; B: a uid without a password entry): A's process of the
# recording gets events that record its own system calls, for itself and
# its other thread, also when its parent has exited (the helper reaps
# orphans); B, A's process outside the recording, a thread of another
# process, a thread that does not exist, a sender that has exited, a setgid
# program, a process that made itself non-dumpable and requests of another
# size, kind or version are refused with the status the contract names
# (include/inclprof/perf_grant.h), without descriptors; the events are
# removed from the thread at exec and outlive the server; a copy without
# the capabilities runs the program, says what is missing and serves
# nothing; the helper passes the program's exit status on.  Skipped where
# it cannot run (not root, no setpriv or setcap, no tracefs).
. "$INCLPROF_SRC/tests/lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! command -v setcap >/dev/null; then
  echo "skip: needs root, setpriv and setcap to run two unprivileged users"
  exit 0
fi
if ! [ -e /sys/kernel/tracing/events/raw_syscalls/sys_enter/id ]; then
  echo "skip: tracefs is not mounted at /sys/kernel/tracing"
  exit 0
fi
gid_a=$(id -g nobody)
as_a() { setpriv --reuid=nobody --regid="$gid_a" --clear-groups "$@"; }
as_b() { setpriv --reuid=54321 --regid=54321 --clear-groups "$@"; }
chmod 755 "$T_DIR"
mkdir u && chown nobody u
cp "$INCLPROF_LIBDIR/inclprof-perfmon" pm && cp pm pm-plain
setcap cap_perfmon,cap_dac_read_search=p pm || { fail "setcap on a copy of inclprof-perfmon"; exit 1; }
gcc -O2 -Wall -Werror -pthread -I"$INCLPROF_SRC/include/inclprof" -o gc \
  "$INCLPROF_SRC/tests/programs/runtime/grant_client.c" || { fail "build grant_client"; exit 1; }

# status FILE: the server's status in grant_client's output
status() { sed -n 's/^status \([0-9]*\):.*/\1/p' "$1"; }
# refused DESC STATUS WHY FILE: refused with that status and words, no descriptor
refused() {
  check_eq "$1: status $2" "$2" "$(status "$4")"
  check "$1: says '$3'" grep -q "$3" "$4"
  check "$1: no descriptor" grep -qx 'fds 0' "$4"
}

as_a ./pm ./gc self >u/self.txt 2>&1
check_eq "A's process of the recording: granted" 0 "$(status u/self.txt)"
check "A's process of the recording: two descriptors" grep -qx 'fds 2' u/self.txt
check "A's process of the recording: its ring receives its system calls" grep -qx 'records yes' u/self.txt
as_a ./pm ./gc thread >u/thread.txt 2>&1
check_eq "A's process of the recording, for its second thread: granted" 0 "$(status u/thread.txt)"
as_a ./pm sh -c '(./gc self >u/orphan-ok.txt 2>&1 &); sleep 1' 2>/dev/null
check_eq "a process of the recording whose parent exited (reaped by the helper): granted" 0 \
  "$(status u/orphan-ok.txt)"

# A server that stays up while other processes ask it.
# (It waits for u/done, at most a minute: a loaded machine may take seconds
# to start it and to run the two clients.)
as_a ./pm sh -c 'echo "$INCLPROF_GRANT" >u/name; i=0
  while [ ! -e u/done ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done' &
server=$!
for _ in $(seq 600); do [ -s u/name ] && break; sleep 0.05; done
name=$(cat u/name)
check "the server names its socket to the recording" test -n "$name"
as_b ./gc self "$name" >b.txt 2>&1
refused "user B asking A's server" 3 "the recording's user" b.txt
as_a ./gc self "$name" >u/outside.txt 2>&1
refused "A's process outside the recording" 4 "does not descend from the server" u/outside.txt
touch u/done
wait "$server"

as_a ./pm ./gc "tid=$$" >u/other.txt 2>&1
refused "a thread of another process" 5 "is not a thread of process" u/other.txt
gone=$(sh -c 'echo $$')
as_a ./pm ./gc "tid=$gone" >u/gone.txt 2>&1
refused "a thread that does not exist" 6 "does not exist" u/gone.txt
as_a ./pm ./gc orphan >u/vanished.txt 2>&1
for _ in $(seq 100); do [ -s u/vanished.txt ] && grep -q '^fds' u/vanished.txt && break; sleep 0.05; done
refused "a sender that exited before its request was read" 6 "has ended" u/vanished.txt
as_a ./pm ./gc version=2 >u/version.txt 2>&1
refused "protocol version 2" 2 "speaks version 1" u/version.txt
as_a ./pm ./gc short >u/short.txt 2>&1
refused "a request one byte short" 1 "not a grant request" u/short.txt
as_a ./pm ./gc kind=3 >u/kind.txt 2>&1
refused "an unknown kind" 1 "unknown request kind 3" u/kind.txt
cp gc gc-setgid && chgrp 54321 gc-setgid && chmod 2755 gc-setgid
as_a ./pm sh -c './gc-setgid self "$INCLPROF_GRANT"' >u/setgid.txt 2>&1
refused "a setgid program of the recording" 3 "gids" u/setgid.txt
as_a ./pm ./gc dumpable0 >u/dumpable.txt 2>&1
refused "a process that made itself non-dumpable" 3 "not dumpable" u/dumpable.txt

as_a ./pm ./gc exec >u/exec.txt 2>&1
check_eq "granted before an exec" 0 "$(status u/exec.txt)"
check "the events are removed from the thread at its exec" grep -qx 'after exec: records no' u/exec.txt
as_a ./pm sh -c './gc hold=u/go >u/hold.txt 2>&1 & while ! grep -q ^fds u/hold.txt; do sleep 0.05; done'
touch u/go  # the server has ended: the helper returned
for _ in $(seq 200); do grep -q '^later' u/hold.txt 2>/dev/null && break; sleep 0.05; done
check "granted events keep recording after the server has ended" grep -qx 'later: records yes' u/hold.txt

as_a ./pm-plain ./gc self >u/plain.txt 2>u/plain.err
check_eq "without its capabilities: the program runs, and is told there is no server" \
  "no socket name" "$(cat u/plain.txt)"
check "without its capabilities: the helper says what is missing and the command" \
  grep -q "it has no CAP_PERFMON: no kernel events for ./gc (as root: setcap cap_perfmon,cap_dac_read_search=p .*pm-plain)" u/plain.err
as_a ./pm sh -c 'exit 7'
check_eq "the program's exit status is the helper's" 7 "$?"
as_a ./pm sh -c 'kill -TERM $$'
check_eq "a program ended by SIGTERM: 128+15" 143 "$?"
done_testing
