#!/bin/sh
# convert_fork_exits.sh - a fork child's trace begins inside the frames its
# parent had open at the fork (main, spawn, the call of fork): their exits
# in the child are counted as such on report's "forks:" line, not as
# unmatched exits among the repairs; the counts stay exact
# (tests/programs/convert/fork_inside.c).
. "$INCLPROF_SRC/tests/lib.sh"
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o fork_inside "$INCLPROF_SRC/tests/programs/convert/fork_inside.c" ||
  { fail "build"; exit 1; }
"$INCLPROF" record -o out ./fork_inside >/dev/null 2>&1
check_eq "the program exits 0 under record" 0 $?
check_eq "two traces: the parent's and the child's" 2 "$(ls out/*.ipb | wc -l)"
"$INCLPROF" report --top 10 out >report.txt 2>&1
check "no repairs: 0 unmatched exits ($(grep '^repairs:' report.txt | cut -c15-80))" \
  grep -q '^repairs: *0 exits reconciled (0 frames skipped by an exit or a longjmp, 0 open at thread end, 0 unmatched exits ignored)' report.txt
check "the child's exits of fork, spawn and main: 3 on the forks line ($(grep '^forks:' report.txt | cut -c15-60))" \
  grep -q '^forks: *3 exit(s) in fork children of frames their parent opened before the fork' report.txt
check_eq "leaf: 1000 calls in each process" 2000 "$(awk '$NF == "leaf" { print $1 }' report.txt)"
check_eq "child_work: one call, in the child" 1 "$(awk '$NF == "child_work" { print $1 }' report.txt)"
done_testing
