#!/bin/sh
# plugin_names.sh - names as users know them: functions redirected by an asm
# label (glibc's large-file functions under _FILE_OFFSET_BITS=64) are named
# without GCC's '*' marker, in the CSV and for `report --callers`; the
# report= file prints demangled names.
. "$INCLPROF_SRC/tests/lib.sh"
PP="$INCLPROF_SRC/tests/programs/plugin"
gcc -O2 -D_FILE_OFFSET_BITS=64 -fplugin="$INCLPROF_PLUGIN" "$PP/lfs.c" -o lfs || fail "build lfs.c"
"$INCLPROF" record ./lfs >/dev/null 2>&1
"$INCLPROF" export --format csv -o inclprof.csv 2>/dev/null
check_eq "the redirected functions have one call each, by their real names" "fopen64=1 lseek64=1 open64=1" \
  "$(awk -F, '$1 ~ /64$/ { print $1 "=" $5 }' inclprof.csv | sort | paste -sd' ' -)"
check_eq "no '*' anywhere in the CSV" 0 "$(grep -c '\*' inclprof.csv)"
"$INCLPROF" report --callers lseek64 >callers.txt 2>&1
check_eq "--callers lseek64: main called it once" "1 main" \
  "$(awk '$NF == "main" { print $1, $NF }' callers.txt)"

g++ -O2 -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-report=report.txt -c "$PP/eh.cc" -o eh.o ||
  fail "build eh.cc"
check "report: demangled names" grep -q '^instrumented	thrower(int)	' report.txt
check_eq "report: no mangled names" 0 "$(grep -c '	_Z' report.txt)"
done_testing
