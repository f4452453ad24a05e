#!/bin/sh
# runtime_clone.sh - children that no fork handler set up
# (tests/programs/runtime/clone_child.c): a clone() child on a two-page
# stack (googletest's "threadsafe" death tests), a clone3 and a fork system
# call made through syscall(), and glibc's _Fork.  Recorded, each child runs
# its probes and exits as in a plain run (it used to die of SIGSEGV reading
# its parent's kevents ring, which is not in its copy of the memory); it is
# not recorded, and its trace says so; the parent's trace holds exactly the
# parent's own calls.  A clone() child that execs an instrumented program
# gives that program a complete trace; one that forks has a child that runs
# as plain too.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o clone_child \
  "$INCLPROF_SRC/tests/programs/runtime/clone_child.c" || { fail "build clone_child"; exit 1; }
for how in clone clone3 fork-syscall _Fork clone-fork; do
  case $how in
  clone | clone-fork) says="clone()" ;; clone3) says="a clone3 system call" ;;
  fork-syscall) says="a fork system call" ;; _Fork) says="_Fork()" ;;
  esac
  ./clone_child $how 1000 >plain.out 2>&1
  plain_rc=$?
  check_eq "$how: plain run" "0 child: status 0, parent work 10" "$plain_rc $(cat plain.out)"
  "$INCLPROF" record -o out-$how -- ./clone_child $how 1000 >prof.out 2>prof.err
  check_eq "$how: recorded, the program's status" "$plain_rc" "$?"
  check_eq "$how: recorded, the program's output (the child ran its probes and exited)" \
    "$(cat plain.out)" "$(cat prof.out)"
  parent= child=
  for f in out-$how/*.ipb; do
    if "$INCLPROF" info "$f" 2>/dev/null | grep -q 'fork child of'; then child=$f; else parent=$f; fi
  done
  "$INCLPROF" info "$child" >info 2>&1
  check_eq "$how: the child's trace says it was not recorded, and why" \
    "trailer:      clean shutdown, exit reason: not recorded: started by $says, which runs no fork handler; it ran as without the runtime; 0 events written, 0 dropped" \
    "$(grep '^trailer:' info)"
  "$INCLPROF" export --format csv -o $how.csv "$parent" >/dev/null 2>&1
  check_eq "$how: the parent's work() calls, none of the child's" 10 "$(q $how.csv '^work$' calls)"
done
./clone_child clone-exec 1000 >plain.out 2>&1
"$INCLPROF" record -o out-exec -- ./clone_child clone-exec 1000 >prof.out 2>prof.err
check_eq "clone-exec: recorded, the program's output" "$(cat plain.out)" "$(cat prof.out)"
check_eq "clone-exec: plain output" "exec'd work 1000
child: status 0, parent work 10" "$(cat plain.out)"
"$INCLPROF" export --format csv -o exec.csv out-exec >/dev/null 2>&1
check_eq "clone-exec: the exec'd program's 1000 calls and the parent's 10" 1010 \
  "$(q exec.csv '^work$' calls)"
done_testing
