#!/bin/sh
# runtime_callee_modules.sh - every library call is reported in the module
# the program called, checked against the program's own dladdr
# (tests/programs/modules/callees.c), whether the process exits or dies of
# a signal (abort), whose flush runs in a signal handler:
#  - libc's puts, and the functions the runtime interposes (sigaction,
#    signal, syscall, posix_spawn, execv): libc's module, not the runtime's;
#  - a function of an uninstrumented library linked in: that library;
#  - a call a library opened RTLD_LOCAL makes to a function of its own
#    that no other object defines: that library;
#  - each with the program's count of calls, and no [unknown] module.
. "$INCLPROF_SRC/tests/lib.sh"
need python3
P="$INCLPROF_SRC/tests/programs/modules"
Q="$INCLPROF_SRC/scripts/csv_query.py"
gcc -O2 -fPIC -shared "$P/helper.c" -o libhelper.so &&
  gcc -O2 -fPIC -c "$P/plugin_leaf.c" -o plugin_leaf.o &&
  gcc -O2 -fPIC -shared -fplugin="$INCLPROF_PLUGIN" "$P/plugin_own.c" plugin_leaf.o -o libplugown.so &&
  gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/callees.c" -o callees -L. -lhelper -Wl,-rpath,"$PWD" -ldl ||
  { fail "build the callee programs"; exit 1; }
here=$(realpath .)

for how in exit abort; do
  "$INCLPROF" record -o out_$how -- ./callees 3 $how "$here/libplugown.so" >truth_$how.txt 2>/dev/null
  status=$?
  [ $how = exit ] && check_eq "$how: exit status" 0 $status
  [ $how = abort ] && check_eq "$how: dies of SIGABRT as it would plain" 134 $status
  libc=$(awk '$1 == "object" && $2 == "puts" { print $3 }' truth_$how.txt)
  check "$how: the program named libc's file ($libc)" test -n "$libc"
  "$INCLPROF" export --format csv -o rows_$how.csv out_$how 2>/dev/null
  for f in puts sigaction signal syscall posix_spawn execv; do
    check_eq "$how: $f: 3 calls, in libc's module" "3	$libc" "$(python3 "$Q" rows_$how.csv "^$f\$" calls module)"
  done
  check_eq "$how: helper_twice: 3 calls, in the library linked in" "3	$here/libhelper.so" \
    "$(python3 "$Q" rows_$how.csv '^helper_twice$' calls module)"
  check_eq "$how: plugin_leaf: 3 calls, in the RTLD_LOCAL library that defines it" \
    "3	$here/libplugown.so" "$(python3 "$Q" rows_$how.csv '^plugin_leaf$' calls module)"
  check_eq "$how: no row without a module" "" \
    "$(python3 "$Q" rows_$how.csv --all function module | awk -F'\t' '$2 == "" || $2 == "[unknown]"')"
  check_eq "$how: no row in the runtime's module" "" \
    "$(python3 "$Q" rows_$how.csv --all function module | grep libinclprof)"
done
done_testing
