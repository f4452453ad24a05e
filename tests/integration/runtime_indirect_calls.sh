#!/bin/sh
# runtime_indirect_calls.sh - a call through a pointer to an instrumented
# function records only the callee's ENTER and EXIT (two events a call, as
# a direct call), and the callee keeps its name, module and the program's
# count of calls; a call through a pointer to an uninstrumented function
# keeps its call-site events and is named from its library
# (tests/programs/runtime/indirect_calls.c).
. "$INCLPROF_SRC/tests/lib.sh"
need python3
P=$INCLPROF_SRC/tests/programs/runtime
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
gcc -O2 -fPIC -shared -fplugin="$INCLPROF_PLUGIN" "$P/indirect_lib.c" -o libind_rec.so &&
  gcc -O2 -fPIC -shared "$P/indirect_lib.c" -o libind_plain.so &&
  gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/indirect_calls.c" -o indirect_calls -L. -lind_rec \
    -Wl,-rpath,"$PWD" -ldl || { fail "build indirect_calls"; exit 1; }
here=$(realpath .)
n=20000

"$INCLPROF" record -o out -- ./indirect_calls $n "$here/libind_plain.so" >truth.txt 2>/dev/null
check_eq "recorded, the program counts its calls as plain" "$(./indirect_calls $n "$here/libind_plain.so")" \
  "$(cat truth.txt)"
"$INCLPROF" export --format csv -o rows.csv out 2>/dev/null
check_eq "twice and plus_one (the program's, through pointers): the program's counts" \
  "$(grep -E '^(twice|plus_one) ' truth.txt | awk '{ print $2 }' | paste -sd' ' -)" \
  "$(for f in twice plus_one; do q rows.csv "^$f\$" calls; done | paste -sd' ' -)"
check_eq "lib_step of the instrumented library: the program's count, in that library" \
  "$(awk '$1 == "lib_step" { print $2 }' truth.txt)	$here/libind_rec.so" \
  "$(q rows.csv '^lib_step$' calls module | grep libind_rec)"
check_eq "lib_step of the uninstrumented library (call-site events): the program's count, in that library" \
  "$(awk '$1 == "lib_step" { print $3 }' truth.txt)	$here/libind_plain.so" \
  "$(q rows.csv '^lib_step$' calls module | grep libind_plain)"
calls=$(q rows.csv --all calls | awk '{ s += $1 } END { print s }')
events=$("$INCLPROF" info out 2>/dev/null | awk '/^events:/ { s += $2 } END { print s + 0 }')
check_eq "two events per call ($calls calls, $((4 * n)) of them through pointers to instrumented functions)" \
  "$((2 * calls))" "$events"
done_testing
