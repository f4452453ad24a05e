#!/bin/sh
# runtime_child_view.sh - a child sees what its parent chose, recorded as in
# a plain run (tests/programs/runtime/child_view.c prints the child's view):
# a child given an empty environment sees no variable at all, and one given
# {A=1} sees A and the runtime's own settings only (not every INCLPROF_*
# name of the caller's environment); a child whose environment names an
# output directory that cannot be made says nothing on its stderr and
# record's summary gives the runtime's cause; a child of a process that lowered its
# descriptor limit, and the grandchild it runs after closing every
# descriptor, find by fstat() the descriptors of a plain run (the runtime's
# live above the soft limit, or fstat() passes over them); a child that
# changes to another user and cannot create its trace in the root-owned
# output directory writes nothing of the runtime's on its stderr, and
# record's summary and report name the process that was not recorded.
. "$INCLPROF_SRC/tests/lib.sh"
src="$INCLPROF_SRC/tests/programs/runtime/child_view.c"
cc_plugin child_view "$src" -O2 || { fail "build child_view"; exit 1; }
gcc -O2 -o child_view_plain "$src" || { fail "build child_view_plain"; exit 1; }

./child_view_plain env >plain.out
check_eq "env: plain run, the children's view" "env: (0)
env: A (1)" "$(cat plain.out)"
INCLPROF_SRC=/elsewhere INCLPROF_PLUGIN=/elsewhere "$INCLPROF" record -o out-env -- ./child_view env \
  >prof.out 2>prof.err
check_eq "env: recorded, the program's status" 0 "$?"
check_eq "env: recorded, the child given an empty environment sees none" "env: (0)" \
  "$(head -1 prof.out)"
check "env: recorded, the child given {A=1} sees A and no variable that is not a runtime setting ($(sed -n 2p prof.out))" \
  sh -c "sed -n 2p prof.out | grep -q '^env: A ' && ! grep -q 'INCLPROF_SRC\|INCLPROF_PLUGIN' prof.out"

./child_view_plain badout >plain.out 2>plain.err
"$INCLPROF" record -o out-badout -- ./child_view badout >prof.out 2>prof.err
check "badout: recorded, the child ran and saw the output directory its parent gave ($(cat prof.out))" \
  grep -q '^env: INCLPROF_OUTPUT ' prof.out
check_eq "badout: nothing of the runtime's on the child's stderr; record names the process not recorded" \
  "inclprof: 2 trace files written to out-badout/ (status 0)
inclprof record: a process of this run was not recorded: cannot create directory /proc/none/out: No such file or directory" \
  "$(cat prof.err)"

./child_view_plain fds >plain.out 2>&1
check_eq "fds: plain run, its status" 0 "$?"
"$INCLPROF" record -o out-fds -- ./child_view fds >prof.out 2>prof.err
check_eq "fds: recorded, the program's status" 0 "$?"
check_eq "fds: recorded, the child and the grandchild find the descriptors of the plain run" \
  "$(cat plain.out)" "$(cat prof.out)"
check_eq "fds: recorded, every process traced (3 programs, 2 fork children before their exec)" "inclprof: 5 trace files written to out-fds/ (status 0)" \
  "$(cat prof.err)"

if [ "$(id -u)" != 0 ]; then
  echo "skip: the user change needs root"
  done_testing
  exit
fi
bin=$(mktemp -d)
chmod 755 "$bin"
cp child_view child_view_plain "$bin/"
"$bin/child_view_plain" user >plain.out 2>plain.err
check_eq "user: plain run, the child's stderr" "child as uid 65534 speaks" "$(cat plain.err)"
"$INCLPROF" record -o out-user -- "$bin/child_view" user >prof.out 2>prof.err
check_eq "user: recorded, the program's output" "$(cat plain.out)" "$(cat prof.out)"
check_eq "user: recorded, the child's stderr is its own line, then record's words" \
  "child as uid 65534 speaks" "$(head -1 prof.err)"
check "user: record's summary names the process not recorded" \
  grep -q "^inclprof record: out-user/[0-9]*\.ipb: after its exec, not recorded: the program it runs (as uid 65534, gid 65534) cannot create its trace in $PWD/out-user: Permission denied" prof.err
"$INCLPROF" report out-user >report 2>&1
check "user: report names the process not recorded" \
  grep -q "^warning: *pid [0-9]* after its exec: not recorded: the program it runs (as uid 65534" report
rm -rf "$bin"
done_testing
