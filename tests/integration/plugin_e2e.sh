#!/bin/sh
# plugin_e2e.sh - the plugin with the real runtime and converter: programs built
# only with -fplugin (no runtime linked) run normally on their own, and under
# `inclprof record` give exact call counts, call-site rows for library calls,
# C++ names, and a trace with no repairs.
. "$INCLPROF_SRC/tests/lib.sh"
PP="$INCLPROF_SRC/tests/programs/plugin"
# calls FUNCTION: the calls column of FUNCTION in inclprof.csv
calls() { awk -F, -v f="$1" '$1==f {print $5}' inclprof.csv; }

gcc -fplugin="$INCLPROF_PLUGIN" -O2 "$PP/calls.c" -o calls_run || fail "calls.c builds without a runtime"
check_eq "runs without any runtime (do-nothing hooks)" 153 "$(./calls_run)"
check "links no runtime library" sh -c "! readelf -d calls_run | grep -q inclprof"
"$INCLPROF" record ./calls_run >/dev/null 2>&1
"$INCLPROF" export --format csv -o inclprof.csv 2>/dev/null
check_eq "leaf: 10 calls" 10 "$(calls leaf)"
check_eq "loop: 1 call" 1 "$(calls loop)"
check_eq "printf: a call-site row with 1 call" 1 "$(calls printf)"
check_eq "inlined helper has no row" "" "$(calls helper)"
check_eq "main's file and line" "$PP/calls.c,18" "$(awk -F, '$1=="main"{print $3 "," $4}' inclprof.csv)"
check "no repairs" sh -c "'$INCLPROF' report 2>&1 | grep -q 'repairs: *0 exits reconciled (0 frames skipped by an exit or a longjmp, 0 open at thread end, 0 unmatched exits ignored)'"

rm -rf inclprof.data
g++ -fplugin="$INCLPROF_PLUGIN" -O2 "$PP/eh.cc" -o eh_run
"$INCLPROF" record ./eh_run >/dev/null 2>&1
"$INCLPROF" export --format csv -o inclprof.csv 2>/dev/null
check_eq "C++: thrower called twice, by its demangled name" 2 "$(calls 'thrower(int)')"
# The call-site frames of the 2 throws and 2 rethrows never return (noreturn:
# no "after" probe): they are closed by unwinding, which is not a repair;
# every function frame closed itself.
"$INCLPROF" report >eh_report.txt 2>&1
check "C++: no repairs" grep -q '^repairs: *0 exits reconciled (0 frames skipped by an exit or a longjmp, 0 open at thread end, 0 unmatched exits ignored)' eh_report.txt
check "C++: the 4 throw call sites are closed by unwinding" grep -q '^unwinding: *4 library call(s) left by an exception' eh_report.txt
done_testing
