#!/bin/sh
# runtime_proc_title.sh - a process that sets its title by writing over its
# argv (as nginx's master and workers do) and names its thread with
# prctl(PR_SET_NAME) is shown as ps shows it at the end: `inclprof info`'s
# command line of each process is the title the program itself reads from
# /proc/self/cmdline when it ends (tests/programs/runtime/proc_title.c), not
# the argv it started with nor the title it inherited at fork.
. "$INCLPROF_SRC/tests/lib.sh"
cc_plugin proc_title -O2 "$INCLPROF_SRC/tests/programs/runtime/proc_title.c" ||
  { fail "build proc_title"; exit 1; }
# a long argument: room for the titles
INCLPROF_OUTPUT=out ./proc_title padding-padding-padding-padding-padding >truth.txt
check_eq "program ran" 0 "$?"
check_eq "the program saw two titles" 2 "$(grep -c '^title [0-9]* proc_title: ' truth.txt)"
"$INCLPROF" info out >info.txt 2>&1
while read -r _ pid title; do
  check_eq "pid $pid: the command line is its title at the end" "$title" \
    "$(awk -v p="$pid" '$1 == "process:" { cur = ($3 == p ",") } cur && $1 == "command:" { sub(/^command: +/, ""); print; exit }' info.txt)"
done <truth.txt
worker=$(awk '/worker process/ { print $2 }' truth.txt)
"$INCLPROF" report --by thread out >threads.txt 2>&1
check "the worker's thread has the name it set with prctl" grep -q " $worker/$worker (worker-1)\$" threads.txt
done_testing
