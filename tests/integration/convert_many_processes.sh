#!/bin/sh
# convert_many_processes.sh - report's memory does not grow with the number
# of process traces it reads: a synthetic session (convert/bench/gen_session.c)
# of 200 processes of 50 000 events, all naming one table file of 20 000
# functions, as a test suite that starts a process per test leaves.  Their
# call counts are the generator's, exactly (report, and the csv export);
# report's peak RSS (getrusage of the child) for 200 processes stays within
# 40 KB a process of its peak for one (measured: 14 KB a process; before
# each thread kept an array as long as the session's function table, 1.5 MB
# a process and more, and the function tables of every trace: 2.1 GB for
# these 200 as format-1 traces).  The same session with the tables in every
# trace (format 1, as older runtimes wrote it: 20 processes) reads the same
# counts.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }

check "build the session generator" gcc -std=c11 -O1 -D_GNU_SOURCE -I"$INCLPROF_LIBDIR/gen" \
  -I"$INCLPROF_SRC/include/inclprof" -o gen "$INCLPROF_SRC/convert/bench/gen_session.c" \
  "$INCLPROF_LIBDIR/libinclprof.a" -lprotobuf-c -ldeflate -lz -lpthread -ldl
mkdir one many old
./gen one 1 50000 20000 12 >one.out
./gen many 200 50000 20000 12 >many.out
./gen old 20 50000 20000 12 inline >old.out
check_eq "one table file beside the 200 traces" "1 200" \
  "$(ls many/*.ipt | wc -l) $(ls many/*.ipb | wc -l)"

# peak_kb CMD...: runs CMD (its output into cmd.out), prints its peak RSS in KB
peak_kb() {
  python3 -c 'import resource, subprocess, sys
with open("cmd.out", "w") as out:
    subprocess.run(sys.argv[1:], stdout=out, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
first() { sed -n 's/.* \([0-9]*\) calls of the first function$/\1/p' "$1"; }

one_kb=$(peak_kb "$INCLPROF" report one)
many_kb=$(peak_kb "$INCLPROF" report many)
check "report: every file read" grep -q '^files: *200, processes: 200' cmd.out
check_eq "report: the first function's calls are the generator's" "$(first many.out)" \
  "$(awk '$NF == "synthetic_function_1" { print $1 }' cmd.out)"
bound=$((one_kb + 200 * 40))
check "report: 200 processes within 40 KB a process of one ($one_kb KB for one, $many_kb KB for 200)" \
  test "$many_kb" -le "$bound"

"$INCLPROF" export --format csv -o many.csv many 2>/dev/null
check_eq "csv: the first function's calls" "$(first many.out)" \
  "$(q many.csv '^synthetic_function_1$' calls)"
"$INCLPROF" export --format csv --by process -o proc.csv many 2>/dev/null
check_eq "csv --by process: a row per process" 200 "$(($(wc -l <proc.csv) - 1))"
"$INCLPROF" export --format csv --process 10007 -o sel.csv many 2>/dev/null
sel=$(q sel.csv '^synthetic_function_1$' calls)
check "csv --process: the selected process alone ($sel of the calls)" \
  test "${sel:-0}" -gt 0 -a "${sel:-0}" -lt "$(first many.out)"

"$INCLPROF" report old >old.txt 2>&1
check_eq "format 1 (tables in every trace): the same calls" "$(first old.out)" \
  "$(awk '$NF == "synthetic_function_1" { print $1 }' old.txt)"
done_testing
