#!/bin/sh
# runtime_writer.sh - full buffers go to the writer thread and nothing is
# lost: for every way a process ends (return, exit, _exit, exec, abort,
# SIGSEGV, SIGTERM) after 50 000 calls (200 002 events, a dozen buffers),
# every event is in the trace, each thread's batches are in seq order with
# none missing, and the Trailer counts the buffers the writer wrote.  A fork
# child records through a writer of its own; INCLPROF_WRITER=inline hands
# nothing off and gives the same events.  One busy thread more than the CPUs
# encode their own buffers (the writer's auto policy), again losing nothing;
# INCLPROF_WRITER=thread hands them off all the same.
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/runtime/build.sh"
rt_build || { fail "build the ABI driver"; exit 1; }
N=50000

# events FILE: events in all batches; seqok FILE: "ok" when every tid's seqs
# are 0, 1, 2, ... in file order
events() { sed -n 's/^batch .* n=\([0-9]*\)$/\1/p' "$1" | awk '{s+=$1} END {print s+0}'; }
seqok() {
  awk '/^batch / { split($2, a, "="); split($3, b, "=");
         if (b[2] != next_seq[a[2]] + 0) bad = 1; next_seq[a[2]] = b[2] + 1 }
       END { print bad ? "out of order" : "ok" }' "$1"
}
field() { sed -n "s/^trailer .* $2=\([0-9]*\).*/\1/p" "$1" | tail -n1; }

# run SCENARIO STATUS REASON EVENTS [ENV]
run() {
  rm -rf out
  env INCLPROF_OUTPUT=out ${5:-} ./abi_driver "$1" "$N" >/dev/null 2>&1
  check_eq "$1${5:+ ($5)}: exit status" "$2" "$?"
  f=$(rt_only_trace out) || { fail "$1: one trace file"; return; }
  ./trace_dump "$f" >dump 2>err
  check_eq "$1${5:+ ($5)}: trace reads to a clean end" 0 "$?"
  check "$1${5:+ ($5)}: trailer reason $3" grep -q "^trailer .*reason=$3 " dump
  check_eq "$1${5:+ ($5)}: every event written" "$4" "$(events dump)"
  check_eq "$1${5:+ ($5)}: batches in seq order, none missing" ok "$(seqok dump)"
  handed=$(field dump handed_off) inl=$(field dump inline)
  batches=$(grep -c '^batch ' dump)
  if [ -n "${5:-}" ]; then
    check_eq "$1 ($5): no buffer handed off, every full one counted as encoded inline" \
      "0 $((batches - 1))" "$handed $inl"
  else
    check "$1: the writer wrote full buffers ($handed of $batches batches, $inl inline)" \
      test "$handed" -ge 1 -a "$((handed + inl))" -lt "$batches"
  fi
}
all=$((4 * N + 2)) cut=$((4 * N + 1))
run return 0 exit "$all"
run exit 3 exit "$cut"
run _exit 4 _exit "$cut"
run exec 0 exec "$cut"
run abort 134 "signal 6" "$cut"
run segv 139 "signal 11" "$cut"
run term 143 "signal 15" "$cut"
run return 0 exit "$all" INCLPROF_WRITER=inline
run term 143 "signal 15" "$cut" INCLPROF_WRITER=inline

# fork: the parent's buffered events stay the parent's; the child starts a
# writer of its own for its N calls.
rm -rf out
INCLPROF_OUTPUT=out ./abi_driver fork-busy "$N" >/dev/null 2>&1
check_eq "fork-busy: exit status" 0 "$?"
check_eq "fork-busy: two trace files" 2 "$(ls out/*.ipb | wc -l)"
for f in out/*.ipb; do
  ./trace_dump "$f" >dump
  if grep -q '^header .*forked_from=0 ' dump; then who=parent want=$((4 * N + 2)); else who=child want=$((4 * N + 1)); fi
  check_eq "fork-busy $who: every event written" "$want" "$(events dump)"
  check_eq "fork-busy $who: batches in seq order" ok "$(seqok dump)"
  check "fork-busy $who: its writer wrote buffers" test "$(field dump handed_off)" -ge 1
done

# crowd: CPUs + 1 threads of 5 N calls each (4 events a call) besides main's N
cpus=$(nproc)
crowd_events=$(( (cpus + 1) * 5 * N * 4 + 4 * N + 2 ))
crowd() {
  rm -rf out
  env INCLPROF_OUTPUT=out ${1:-} ./abi_driver crowd "$N" >/dev/null 2>&1
  check_eq "crowd${1:+ ($1)}: exit status" 0 "$?"
  ./trace_dump "$(rt_only_trace out)" >dump
  check_eq "crowd${1:+ ($1)}: every event written" "$crowd_events" "$(events dump)"
  check_eq "crowd${1:+ ($1)}: batches in seq order, none missing" ok "$(seqok dump)"
  crowded=$(field dump crowded) handed=$(field dump handed_off)
}
crowd
check "crowd: $cpus + 1 busy threads encode their own buffers ($crowded crowded, $handed handed off)" \
  test "$crowded" -ge 10
crowd INCLPROF_WRITER=thread
check "crowd (INCLPROF_WRITER=thread): every buffer handed off or behind, none as crowded ($handed handed off)" \
  test "$crowded" -eq 0 -a "$handed" -ge 1
if [ "$cpus" -ge 2 ]; then
  rm -rf out
  INCLPROF_OUTPUT=out ./abi_driver return "$((20 * N))" >/dev/null 2>&1
  ./trace_dump "$(rt_only_trace out)" >dump
  check_eq "one busy thread on $cpus CPUs: no buffer encoded as crowded" 0 "$(field dump crowded)"
fi

# inclprof info shows the counts
rm -rf out
INCLPROF_OUTPUT=out ./abi_driver return "$N" >/dev/null 2>&1
"$INCLPROF" info out >info 2>&1
check "info: the writer line" grep -Eq "^writer: +[1-9][0-9]* full buffers written by the runtime's writer thread, [1-9][0-9]* by the program's own threads \(0 while they kept every CPU busy, [1-9][0-9]* while the writer was starting, behind or off\)" info
done_testing
