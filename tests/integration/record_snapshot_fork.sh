#!/bin/sh
# record_snapshot_fork.sh - forks while the control thread writes snapshots
# (tests/programs/latency/fork_while_saving.c: a worker's 3 ms calls of
# handle() back to back, all slow under handle>1ms, while the main thread
# forks children that _exit at once): every child exits at once (none waits
# for its parent's snapshot writer, which held the writer's lock at the
# fork), none has a descriptor of its parent's snapshots or trace files
# open, every process's trace ends cleanly, and the parent's snapshots are
# written as usual (one for nearly every call).
. "$INCLPROF_SRC/tests/lib.sh"
cc_plugin fork_while_saving -O2 -g -pthread "$INCLPROF_SRC/tests/programs/latency/fork_while_saving.c"

timeout 60 "$INCLPROF" record -o rec --snapshot-if 'handle>1ms' --snapshot-keep 10000 ./fork_while_saving 2 >own.txt 2>err.txt
check_eq "the program ran to its end recorded" 0 "$?"
read -r _ forks _ slow _ leaked _ hung <own.txt
snaps=$(ls rec/snapshots 2>/dev/null | wc -l)
check "it forked while snapshots were written (${forks:-no} children, ${snaps} snapshots)" \
  test "${forks:-0}" -ge 5 -a "$snaps" -ge 20
check_eq "every child exited at once (none was still there 2 s later)" 0 "$hung"
check_eq "no child had a snapshot or a file of its parent's trace open" 0 "$leaked"
check_eq "one trace per process" $((forks + 1)) "$(ls rec/*.ipb | wc -l)"
unclean=
for f in rec/*.ipb; do
  "$INCLPROF" info "$f" 2>&1 | grep -q "^trailer: *clean shutdown" || unclean="$unclean $f"
done
check_eq "every trace ends cleanly" "" "$unclean"
check "a snapshot for nearly every call of handle(), each over 1 ms ($snaps of ${slow:-no} calls)" \
  test "$snaps" -le "${slow:-0}" -a "$((snaps * 10))" -ge "$((${slow:-0} * 9))"
done_testing
