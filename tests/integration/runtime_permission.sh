#!/bin/sh
# runtime_permission.sh - a user the kernel refuses kernel events is told
# what is missing, not that tracefs is not mounted: run as user nobody
# (setpriv, from root) where tracefs is mounted but readable by root only,
# the trace's transitions note names the permission on the tracepoint's
# id file, and, when kernel.perf_event_paranoid is above 1, that setting;
# the program runs as it does plain.  Skipped with a message where it
# cannot apply (not root, no setpriv, tracefs readable by everyone).
. "$INCLPROF_SRC/tests/lib.sh"
id_file=/sys/kernel/tracing/events/raw_syscalls/sys_enter/id
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
  echo "skip: needs root and setpriv to run a program as user nobody"
  exit 0
fi
if ! grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts; then
  echo "skip: tracefs is not mounted at /sys/kernel/tracing"
  exit 0
fi
if as_nobody test -r "$id_file"; then
  echo "skip: user nobody may read $id_file here"
  exit 0
fi
printf 'int work(int x) { return x + 1; }\nint main(void) { return work(41) - 42; }\n' >t.c
gcc -O2 -fplugin="$INCLPROF_PLUGIN" t.c -o t || { fail "build the program"; exit 1; }
chmod 755 . t
mkdir out && chown nobody out
as_nobody env INCLPROF_OUTPUT="$PWD/out" INCLPROF_TRANSITIONS=kevents \
  LD_PRELOAD="$INCLPROF_LIBDIR/libinclprof.so" ./t
check_eq "the program's exit status as user nobody" 0 "$?"
"$INCLPROF" info out >info.txt 2>&1
why=$(sed -n 's/^ *why: //p' info.txt)
check "the note names the permission on the id file" \
  grep -q "permission denied reading $id_file: tracefs is mounted, but this user may not read it" info.txt
check_eq "the note does not say tracefs is not mounted" "" "$(echo "$why" | grep 'not mounted')"
level=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$level" -gt 1 ]; then
  check "the note names kernel.perf_event_paranoid ($level)" \
    grep -q "kernel.perf_event_paranoid is $level and this process has neither root nor CAP_PERFMON" info.txt
fi
check "the note gives the next step" grep -q "run as root, or record it with .sudo inclprof record --user [0-9]* -- PROG. (or through inclprof-perfmon, installed with its capabilities), or use --transitions none" info.txt
done_testing
