#!/bin/sh
# convert_many_processes.sh - report's memory does not grow with the number
# of process traces it reads: synthetic sessions (convert/bench/gen_session.c)
# of 100 and of 500 processes of 10 000 events, all naming one table file of
# 20 000 functions, as a test suite that starts a process per test leaves.
# Their call counts are the generator's, exactly (report, and the csv
# export); report's peak RSS (getrusage of the child) for 500 processes
# stays within 40 KB a process of its peak for 100, and that for 100 within
# 40 KB a process of its peak for one (measured: under 2 KB a process;
# before each thread kept an array as long as the session's function table,
# 1.5 MB a process and more, and the function tables of every trace: 2.1 GB
# for 200 such processes as format-1 traces).  The same session with the
# tables in every trace (format 1, as older runtimes wrote it: 20 processes)
# reads the same counts.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }

check "build the session generator" gcc -std=c11 -O1 -D_GNU_SOURCE -I"$INCLPROF_LIBDIR/gen" \
  -I"$INCLPROF_SRC/include/inclprof" -o gen "$INCLPROF_SRC/convert/bench/gen_session.c" \
  "$INCLPROF_LIBDIR/libinclprof.a" -lprotobuf-c -ldeflate -lz -lpthread -ldl
mkdir one hundred many old
./gen one 1 10000 20000 12 >one.out
./gen hundred 100 10000 20000 12 >hundred.out
./gen many 500 10000 20000 12 >many.out
./gen old 20 10000 20000 12 inline >old.out
check_eq "one table file beside the 500 traces" "1 500" \
  "$(ls many/*.ipt | wc -l) $(ls many/*.ipb | wc -l)"

# peak_kb CMD...: runs CMD (its output into cmd.out), prints its peak RSS in KB
# (an inclprof built with AddressSanitizer, as make check's sanitizer phase
# runs it, without its quarantine of freed memory: the peak is then the
# memory in use, as in the plain build)
peak_kb() {
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" python3 -c 'import resource, subprocess, sys
with open("cmd.out", "w") as out:
    subprocess.run(sys.argv[1:], stdout=out, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
first() { sed -n 's/.* \([0-9]*\) calls of the first function$/\1/p' "$1"; }

one_kb=$(peak_kb "$INCLPROF" report one)
hundred_kb=$(peak_kb "$INCLPROF" report hundred)
check_eq "report of 100: the first function's calls are the generator's" "$(first hundred.out)" \
  "$(awk '$NF == "synthetic_function_1" { print $1 }' cmd.out)"
many_kb=$(peak_kb "$INCLPROF" report many)
check "report: every file read" grep -q '^files: *500, processes: 500' cmd.out
check_eq "report: the first function's calls are the generator's" "$(first many.out)" \
  "$(awk '$NF == "synthetic_function_1" { print $1 }' cmd.out)"
# AddressSanitizer's redzones about double a process's small allocations:
# 80 KB a process for an inclprof built with it (measured: 59 KB)
per=40
ldd "$INCLPROF" 2>/dev/null | grep -q libasan && per=80
check "report: 100 processes within $per KB a process of one ($one_kb KB for one, $hundred_kb KB for 100)" \
  test "$hundred_kb" -le $((one_kb + 100 * per))
check "report: 500 processes within $per KB a process of 100 ($hundred_kb KB for 100, $many_kb KB for 500)" \
  test "$many_kb" -le $((hundred_kb + 400 * per))

"$INCLPROF" export --format csv -o many.csv many 2>/dev/null
check_eq "csv: the first function's calls" "$(first many.out)" \
  "$(q many.csv '^synthetic_function_1$' calls)"
"$INCLPROF" export --format csv --by process -o proc.csv many 2>/dev/null
check_eq "csv --by process: a row per process" 500 "$(($(wc -l <proc.csv) - 1))"
"$INCLPROF" export --format csv --process 10007 -o sel.csv many 2>/dev/null
sel=$(q sel.csv '^synthetic_function_1$' calls)
check "csv --process: the selected process alone ($sel of the calls)" \
  test "${sel:-0}" -gt 0 -a "${sel:-0}" -lt "$(first many.out)"

"$INCLPROF" report old >old.txt 2>&1
check_eq "format 1 (tables in every trace): the same calls" "$(first old.out)" \
  "$(awk '$NF == "synthetic_function_1" { print $1 }' old.txt)"
done_testing
