#!/bin/sh
# plugin_lto.sh - LTO used as documented (the plugin on the compile and the
# link commands) is quiet: a two-unit program builds with -O2 -flto -Werror,
# nothing on stderr, and gives exact counts; the compile step notes in the
# report= file (and with verbose, on stderr) that probes come at link time.
. "$INCLPROF_SRC/tests/lib.sh"
PP="$INCLPROF_SRC/tests/programs/plugin"
PF="-fplugin=$INCLPROF_PLUGIN"
gcc -O2 -flto -Werror "$PF" -fplugin-arg-inclprof-report=report.txt -c "$PP/xunit_main.c" -o main.o 2>err.txt
rc1=$?
gcc -O2 -flto -Werror "$PF" -c "$PP/xunit_lib.c" -o lib.o 2>>err.txt
rc2=$?
gcc -O2 -flto -Werror "$PF" main.o lib.o -o prog 2>>err.txt
check_eq "compile and link with -Werror: exit status 0 each" "0 0 0" "$rc1 $rc2 $?"
check_eq "nothing on stderr" "" "$(cat err.txt)"
check "the compile step notes in the report that probes come at link time" \
  grep -q "xunit_main.c: -flto: instrumented when linking" report.txt
"$INCLPROF" record ./prog >/dev/null 2>&1
"$INCLPROF" export --format csv -o inclprof.csv 2>/dev/null
calls() { awk -F, -v f="$1" '$1 == f { print $5 }' inclprof.csv; }
check_eq "scale, offset and main: exact calls" "1000 1000 1" "$(calls scale) $(calls offset) $(calls main)"
gcc -O2 -flto "$PF" -fplugin-arg-inclprof-verbose -c "$PP/xunit_lib.c" -o lib2.o 2>verbose.txt
check "verbose: the note on stderr" grep -q "^inclprof: # .*xunit_lib.c: -flto: instrumented when linking" verbose.txt
done_testing
