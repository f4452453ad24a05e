#!/bin/sh
# runtime_ctl_stale.sh - no control socket (DIR/PID.ctl) outlives its
# process: the runtime removes it however the process ends (return, exit,
# _exit, exec, a fatal signal, main's pthread_exit); one left by a process
# killed with SIGKILL, where nothing can run, is removed by `inclprof ctl`,
# which finds the pid gone, and by `inclprof record` once its program ends.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/runtime/build.sh"
rt_build || { fail "build the ABI driver"; exit 1; }
cc_plugin last_thread "$INCLPROF_SRC/tests/programs/runtime/last_thread.c" -O2 -pthread ||
  { fail "build last_thread"; exit 1; }
sockets() { ls "$1" | grep -c '\.ctl$'; }

for how in return exit _exit exec abort term; do
  rm -rf out
  INCLPROF_OUTPUT=out ./abi_driver $how 20 >/dev/null 2>&1
  check_eq "$how: no socket left" 0 "$(sockets out)"
done
rm -rf out
INCLPROF_OUTPUT=out ./last_thread main-exit 10 >/dev/null 2>&1
check_eq "main's pthread_exit: no socket left" 0 "$(sockets out)"

rm -rf out
INCLPROF_OUTPUT=out ./abi_driver kill 20 >/dev/null 2>&1
pid=$(ls out | sed -n 's/\.ipb$//p')
check_eq "SIGKILL: the socket stays behind" "$pid.ctl" "$(ls out | grep '\.ctl$')"
"$INCLPROF" ctl -o out "$pid" status >ctl.out 2>&1
check_eq "ctl: the pid is gone" "1 inclprof ctl: pid $pid is not running" "$? $(cat ctl.out)"
check_eq "ctl: and its socket with it" 0 "$(sockets out)"

"$INCLPROF" record -o rec -- sh -c 'INCLPROF_OUTPUT=rec ./abi_driver kill 20' >/dev/null 2>&1
check_eq "record: the socket of its program killed with SIGKILL removed" 0 "$(sockets rec)"
check_eq "record: the trace kept" 1 "$(ls rec | grep -c '\.ipb$')"
done_testing
