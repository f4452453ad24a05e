#!/bin/sh
# convert_modules.sh - every row names its module: direct calls from an
# instrumented function to libc (fwrite, open, close, fflush, fork, waitpid) name
# libc.so.6, as the same functions reached through a pointer do, and so
# does the fork child's _exit, which the runtime interposes; a direct call
# to a function of the executable that no object exports names the
# executable; `report --by module` splits the calls between them.
. "$INCLPROF_SRC/tests/lib.sh"
P="$INCLPROF_SRC/tests/programs/convert"
gcc -O2 -c "$P/libcalls_plain.c" -o plain.o || fail "plain object compiles"
gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/libcalls.c" plain.o -o libcalls || fail "program compiles"
"$INCLPROF" record -o data ./libcalls >out 2>/dev/null
check_eq "program output" "x x x x x" "$(paste -sd' ' out)"
"$INCLPROF" export --format csv -o rows.csv data 2>/dev/null
# mod FUNCTION: "module basename,calls" of that function's row
mod() { awk -F, -v f="$1" 'NR > 1 && $1 == f { n = split($2, m, "/"); print m[n] "," $5 }' rows.csv; }
check_eq "fwrite: libc.so.6, 5 calls" "libc.so.6,5" "$(mod fwrite)"
check_eq "open: libc.so.6, 5 calls" "libc.so.6,5" "$(mod open)"
check_eq "close: libc.so.6, 5 calls" "libc.so.6,5" "$(mod close)"
check_eq "fflush: libc.so.6, 1 call" "libc.so.6,1" "$(mod fflush)"
check_eq "fork: libc.so.6, 1 call" "libc.so.6,1" "$(mod fork)"
check_eq "waitpid: libc.so.6, 1 call" "libc.so.6,1" "$(mod waitpid)"
check_eq "the child's _exit (interposed by the runtime): libc.so.6, 1 call" "libc.so.6,1" "$(mod _exit)"
check_eq "an unexported function of the executable: the executable" "libcalls,5" "$(mod plain_helper)"
check_eq "no [unknown] module" 0 "$(awk -F, 'NR > 1 && $2 == "[unknown]"' rows.csv | wc -l)"
"$INCLPROF" export --format csv --by module -o modules.csv data 2>/dev/null
# calls per module basename: module,calls
calls() { awk -F, -v m="$1" 'NR > 1 { n = split($1, p, "/"); if (p[n] == m) print $2 }' modules.csv; }
check_eq "--by module: libc.so.6 has the 19 library calls (18 in the parent, _exit in the child)" 19 "$(calls libc.so.6)"
check_eq "--by module: the executable has main and plain_helper (6 calls)" 6 "$(calls libcalls)"
"$INCLPROF" report --by module data >report.txt 2>&1
check "report --by module lists libc.so.6 with 19 calls" grep -Eq '^ +19 .*/libc\.so\.6$' report.txt
done_testing
