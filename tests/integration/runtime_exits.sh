#!/bin/sh
# runtime_exits.sh - every way a process ends leaves a complete, readable
# trace (Trailer with the right reason), the program's exit status is
# unchanged, and a killed process leaves a readable file.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/runtime/build.sh"
rt_build || { fail "build the ABI driver"; exit 1; }

# run SCENARIO EXPECTED_STATUS EXPECTED_TRAILER_REGEX
run() {
  rm -rf out
  INCLPROF_OUTPUT=out ./abi_driver "$1" 20 >/dev/null 2>&1
  check_eq "$1: exit status" "$2" "$?"
  f=$(rt_only_trace out) || { fail "$1: one trace file"; return; }
  ./trace_dump "$f" >dump 2>err
  check_eq "$1: trace reads to a clean end" 0 "$?"
  check "$1: trailer $3" grep -Eq "^trailer $3" dump
  # 20 calls of work() = 80 events plus main's entry, all written
  n=$(sed -n 's/^batch .* n=\([0-9]*\)$/\1/p' dump | awk '{s+=$1} END {print s+0}')
  check "$1: all events written ($n >= 81)" test "$n" -ge 81
}
run return 0 "clean=1 reason=exit "
run exit 3 "clean=1 reason=exit "
run _exit 4 "clean=1 reason=_exit "
run exec 0 "clean=1 reason=exec "
run abort 134 "clean=0 reason=signal 6 "
run segv 139 "clean=0 reason=signal 11 "
run term 143 "clean=0 reason=signal 15 "
run pipe 141 "clean=0 reason=signal 13 "
run alarm 142 "clean=0 reason=signal 14 "
# SIGRTMIN is libc's (34 with glibc): its second real-time signal
rtmin1=$(( $(kill -l RTMIN 2>/dev/null || echo 34) + 1 ))
run rtmin1 $((128 + rtmin1)) "clean=0 reason=signal $rtmin1 "

# A failed exec: a trailer for the attempt, recording goes on, final trailer.
rm -rf out
INCLPROF_OUTPUT=out ./abi_driver exec-fail 20 >/dev/null 2>&1
check_eq "exec-fail: exit status" 0 "$?"
./trace_dump "$(rt_only_trace out)" >dump
check_eq "exec-fail: two trailers, exec then exit" "exec exit" \
  "$(sed -n 's/^trailer .*reason=\([^ ]*\) .*/\1/p' dump | tr '\n' ' ' | sed 's/ $//')"

# SIGKILL: nothing can run; the file must still be a readable trace.
rm -rf out
INCLPROF_OUTPUT=out ./abi_driver kill 20 >/dev/null 2>&1
check_eq "kill: exit status" 137 "$?"
./trace_dump "$(rt_only_trace out)" >dump 2>&1
check_eq "kill: file reads cleanly (header and tables)" 0 "$?"
check "kill: header present" grep -q "^header " dump

# vfork + exec: the child runs no runtime code; the parent's trace is intact.
rm -rf out
INCLPROF_OUTPUT=out ./abi_driver vfork 20 >/dev/null 2>&1
check_eq "vfork: exit status" 0 "$?"
check_eq "vfork: exactly one trace file" 1 "$(ls out/*.ipb | wc -l)"
./trace_dump "$(rt_only_trace out)" >dump
check "vfork: parent trailer" grep -q "^trailer clean=1 reason=exit " dump

# Unwritable output: one line on stderr, the program runs normally.
touch blocker
INCLPROF_OUTPUT=blocker/sub ./abi_driver exit 20 >/dev/null 2>err
check_eq "unwritable output: exit status unchanged" 3 "$?"
check_eq "unwritable output: one line on stderr" 1 "$(wc -l <err)"
check "unwritable output: message names the directory" grep -q "blocker/sub" err

# Never overwrite: an existing <pid>.ipb name is skipped (exec keeps the pid).
rm -rf out
INCLPROF_OUTPUT=out ./abi_driver return 1 >/dev/null
check_eq "one file per process" 1 "$(ls out/*.ipb | wc -l)"

# Without the runtime the instrumented program runs normally.
./abi_driver_bare exit 20 >/dev/null 2>&1
check_eq "no runtime: program runs, same status" 3 "$?"
check "no runtime: no trace written" test ! -e inclprof.data
# record says what it wrote: nothing, for a program without instrumented code.
"$INCLPROF" record -o plain.data -- /bin/true 2>record.err
check_eq "record of an uninstrumented program: its status" 0 "$?"
check "record says no trace was written" grep -q "no trace was written to plain.data/: /bin/true ran no code compiled with the plugin" record.err
done_testing
