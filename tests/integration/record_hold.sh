#!/bin/sh
# record_hold.sh - `inclprof record` holds the kevents tracepoint's
# registration for its program (cli/record_hold.c): while the program runs, a
# holder process listens on its socket; the program's wait breakdown is still
# exact (its page faults counted one by one, tests/programs/wait/
# ground_truth.c); the holder keeps no descriptor of record's (its stdio is
# /dev/null, so a pipe from record is not held open), holds its perf events
# (the syscall tracepoint, the page faults, and each wake-up and futex
# tracepoint the kernel has), has a command line that says what it is
# (/proc/PID/cmdline: before, record's own, "inclprof record -o out ..."),
# and exits once no record has been connected for a while.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"
P="$INCLPROF_SRC/tests/programs/wait"

if cc_plugin gt "$P/ground_truth.c" -O2 -pthread; then ok "compile with the plugin"
else fail "compile with the plugin"; exit 1; fi

name="@inclprof-hold-$(id -u)-$(stat -c '%d-%i' /)"
# The program's parent (sh, not instrumented) looks at the holder while
# record runs: the inode of the listening socket of that name (flags
# __SO_ACCEPTCON), the inclprof-hold process that has it, and that process's
# descriptors.  The pipe to cat is how a script reads record's stderr.
cat >look.sh <<'EOF'
inode=$(awk -v n="$1" '$4 == "00010000" && $NF == n { print $7 }' /proc/net/unix)
echo "$inode" | grep -c . >held.txt
for p in $(pgrep -x inclprof-hold); do
  ls -l "/proc/$p/fd" 2>/dev/null | grep -q "socket:\[$inode\]" || continue
  echo "$p" >holder.txt
  ls -l "/proc/$p/fd" | awk 'NR > 1 { print $NF }' >holder-fds.txt
  for fd in 0 1 2; do readlink "/proc/$p/fd/$fd"; done | paste -sd' ' - >holder-std.txt
  tr '\0' '|' <"/proc/$p/cmdline" >holder-cmdline.txt
  readlink "/proc/$p/exe" >holder-exe.txt
done
exec ./gt faults 1500
EOF
"$INCLPROF" record -o out --transitions kevents -- sh look.sh "$name" 2>&1 >truth.txt | cat >rec.err
if ! "$INCLPROF" info out 2>/dev/null | grep -q 'transitions: *kevents'; then
  echo "ok - kevents unavailable here: $("$INCLPROF" info out 2>/dev/null | sed -n 's/^ *why: //p' | head -1) # SKIP"
  done_testing
  exit
fi
check_eq "a holder listens on $name while the program runs" 1 "$(cat held.txt)"
"$INCLPROF" export -f csv -o faults.csv out 2>/dev/null
check_eq "the program's page faults are counted exactly" "$(awk '$1 == "truth" { print $3 }' truth.txt)" \
  "$(csv_rows faults.csv function page_faults_inclusive | awk -F'\t' '$1 == "toucher" { print $2 }')"
if [ ! -s holder.txt ]; then
  fail "no inclprof-hold process has the listening socket"
  done_testing
  exit
fi
holder=$(cat holder.txt)
check_eq "the holder's stdin, stdout and stderr are /dev/null" "/dev/null /dev/null /dev/null" \
  "$(cat holder-std.txt)"
# Records of another build of inclprof running at once may have started it.
if [ "$(cat holder-exe.txt)" = "$(readlink -f "$INCLPROF")" ]; then
  check_eq "the holder's command line says what it is" \
    "inclprof-hold|(holds the kevents tracepoints for the inclprof records of uid $(id -u); exits 2 s after the last)|" \
    "$(cat holder-cmdline.txt)"
else
  echo "ok - the holder was started by another inclprof, $(cat holder-exe.txt) # SKIP"
fi
others=0
for t in sched/sched_waking sched/sched_wakeup_new syscalls/sys_enter_futex; do
  [ -r "/sys/kernel/tracing/events/$t/id" ] || [ -r "/sys/kernel/debug/tracing/events/$t/id" ] && others=$((others + 1))
done
check_eq "the holder keeps its perf events open (2, and $others wake-up and futex tracepoints)" \
  $((2 + others)) "$(grep -c 'perf_event' holder-fds.txt)"
check_eq "the holder holds nothing but them, /dev/null and sockets" "" \
  "$(grep -v -e perf_event -e '^/dev/null$' -e '^socket:' holder-fds.txt)"

# Other records (other tests or work running at once) may keep it in use,
# connecting one after another: then it only has to outlive them.
others=0
for _ in $(seq 300); do
  [ -d "/proc/$holder" ] || break
  pgrep -x inclprof >/dev/null && others=1
  sleep 0.2
done
if [ ! -d "/proc/$holder" ]; then
  ok "the holder exits when no record uses it"
elif [ $others = 1 ] || [ "$(ls -l "/proc/$holder/fd" 2>/dev/null | grep -c 'socket:')" -gt 1 ]; then
  echo "ok - the holder is still in use by other records after 60 s # SKIP"
else
  fail "the holder is still running 60 s after the last record, with no record connected"
fi
done_testing
