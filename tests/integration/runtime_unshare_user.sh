#!/bin/sh
# runtime_unshare_user.sh - unshare(CLONE_NEWUSER), which the kernel refuses
# a process of more than one thread, succeeds in a recorded program of one
# thread as in a plain run (tests/programs/runtime/unshare_user.c): the
# runtime's writer and control threads end before the call and start again
# after.  Through libc's unshare() and through syscall(), as root and as
# user nobody; the trace holds every work() call, before and after, most of
# them written by the writer thread (INCLPROF_WRITER=thread), and ends
# cleanly.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
src="$INCLPROF_SRC/tests/programs/runtime/unshare_user.c"
gcc -O2 -o un_plain "$src" || { fail "build unshare_user"; exit 1; }
cc_plugin un_rec "$src" -O2 || { fail "build unshare_user with the plugin"; exit 1; }
chmod 755 "$T_DIR"
mkdir -m 777 out

# run WHO MODE: the plain and the recorded run (as WHO: root or nobody) print
# the same; the trace is complete
run() {
  as=
  [ "$1" = nobody ] && as="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups"
  $as ./un_plain "$2" 500000 >plain.out 2>&1
  if [ "$(head -n1 plain.out)" = "unshare: EPERM" ]; then
    # the kernel refuses a new user namespace to a process in a chroot (a
    # fresh root's make check) or where user namespaces are turned off
    ok "$1 $2: no user namespace here even plain (EPERM): the recorded run must answer the same # SKIP"
  else
    check_eq "$1 $2: the plain run enters the namespace" "unshare: 0
work 1000000" "$(cat plain.out)"
  fi
  $as env INCLPROF_WRITER=thread INCLPROF_OUTPUT=out/$1-$2 ./un_rec "$2" 500000 >prof.out 2>&1
  check_eq "$1 $2: the recorded run's output" "$(cat plain.out)" "$(cat prof.out)"
  f=$(ls out/$1-$2/*.ipb)
  "$INCLPROF" export --format csv -o $1-$2.csv "$f" >/dev/null 2>&1
  check_eq "$1 $2: every work() call recorded" 1000000 "$(q $1-$2.csv '^work$' calls)"
  "$INCLPROF" info "$f" >info 2>&1
  check "$1 $2: the trace ends cleanly at exit" \
    grep -q '^trailer:      clean shutdown, exit reason: exit;' info
  check "$1 $2: the writer thread wrote most buffers" \
    awk '/^writer:/ { exit !($2 > $11) }' info
}

run root libc
run root syscall
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  run nobody libc
  run nobody syscall
else
  echo "skip: as user nobody: needs root and setpriv"
fi
done_testing
