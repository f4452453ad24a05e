#!/bin/sh
# convert_memory_paths.sh - what reading one more process costs is bounded
# by its call paths: synthetic sessions (convert/bench/gen_session.c) of 50
# and of 500 processes of 10 000 events, each walking the same small call
# graph (depth 4: a few hundred call paths a process, the same in every
# process), as a test suite's many short processes running the same code.
# The paths a process adds to a thread's tree are counted from report
# --tree, at 184 bytes each (the size of a call path's values).  The views
# that show no path (report's table, --by process, the csv export) grow by
# less than half of that a process (measured: 2 to 4 KB against 42 KB):
# they keep the session's sums, not a tree per process.  report --tree
# writes each file's trees as it reads the file and frees them, so it too
# grows by less than half of that (it grew by 1.4 times its paths' bytes a
# process when it kept every tree); so do report --callers and the callgrind,
# folded, html and pprof exports, which take what they need of each file's
# trees as the file is read (html spools each thread's page rows to a
# temporary file; pprof, when its samples are those of the threads' paths
# merged, keeps the merged tree; they grew by 58 KB a process when they kept
# every tree).  The bounds are twice that for an
# inclprof built with AddressSanitizer.  Each view's calls are the
# generator's.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }

check "build the session generator" gcc -std=c11 -O1 -D_GNU_SOURCE -I"$INCLPROF_LIBDIR/gen" \
  -I"$INCLPROF_SRC/include/inclprof" -o gen "$INCLPROF_SRC/convert/bench/gen_session.c" \
  "$INCLPROF_LIBDIR/libinclprof.a" -lprotobuf-c -ldeflate -lz -lpthread -ldl
gcc -O1 -o peak "$INCLPROF_SRC/tests/programs/convert/peak_rss.c" || fail "build the peak launcher"
mkdir few many
./gen few 50 10000 20000 4 >few.out
./gen many 500 10000 20000 4 >many.out
first() { sed -n 's/.* \([0-9]*\) calls of the first function$/\1/p' "$1"; }

# peak_kb OUT CMD...: runs CMD (its output into OUT), prints its peak RSS in
# KB; an AddressSanitizer build without its quarantine of freed memory
peak_kb() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" ./peak "$@" 2>/dev/null; }
# paths FILE: the call paths report --tree printed (a row per path)
paths() { awk '/Call path$/ { on = 1; next } NF == 0 { on = 0 } on && $1 ~ /^[0-9]+$/ { n++ } END { print n + 0 }' "$1"; }

few_tree=$(peak_kb few_tree.txt "$INCLPROF" report --tree few)
many_tree=$(peak_kb many_tree.txt "$INCLPROF" report --tree many)
n_few=$(paths few_tree.txt) n_many=$(paths many_tree.txt)
check "every process has its paths (50: $n_few, 500: $n_many)" test "$n_few" -gt 5000 -a "$n_many" -gt $((9 * n_few))
# the bytes of the call paths one more process adds
per_tree=$(((n_many - n_few) * 184 / 450))
check_eq "--tree: the first function's calls are the generator's" "$(first many.out)" \
  "$(awk '$NF == "synthetic_function_1" { n += $1 } END { print n }' many_tree.txt)"

# grows NAME FEW_KB MANY_KB BOUND: one more process costs at most BOUND bytes
grows() {
  check "$1: one more process adds at most $4 bytes ($2 KB for 50 processes, $3 KB for 500: $((($3 - $2) * 1024 / 450)) bytes a process; its call paths: $per_tree bytes)" \
    test $((($3 - $2) * 1024 / 450)) -le "$4"
}
# AddressSanitizer's shadow and redzones add to every allocation: twice the
# bounds for an inclprof built with it
asan=1
ldd "$INCLPROF" 2>/dev/null | grep -q libasan && asan=2
grows "report --tree" "$few_tree" "$many_tree" $((asan * per_tree / 2))

few_kb=$(peak_kb few.txt "$INCLPROF" report few)
many_kb=$(peak_kb many.txt "$INCLPROF" report many)
check_eq "report: the first function's calls are the generator's" "$(first many.out)" \
  "$(awk '$NF == "synthetic_function_1" { print $1 }' many.txt)"
grows "report" "$few_kb" "$many_kb" $((asan * per_tree / 2))

few_kb=$(peak_kb few_proc.txt "$INCLPROF" report --by process few)
many_kb=$(peak_kb many_proc.txt "$INCLPROF" report --by process many)
check "report --by process: every process read" grep -q '^files: *500, processes: 500' many_proc.txt
grows "report --by process" "$few_kb" "$many_kb" $((asan * per_tree / 2))

few_kb=$(peak_kb few_csv.txt "$INCLPROF" export --format csv -o few.csv few)
many_kb=$(peak_kb many_csv.txt "$INCLPROF" export --format csv -o many.csv many)
check_eq "csv: the first function's calls" "$(first many.out)" "$(q many.csv '^synthetic_function_1$' calls)"
grows "export --format csv" "$few_kb" "$many_kb" $((asan * per_tree / 2))
# report --callers, export folded and callgrind take each file's trees as it
# is read and free them: bounded like report --tree
few_kb=$(peak_kb few_callers.txt "$INCLPROF" report --callers synthetic_function_1 few)
many_kb=$(peak_kb many_callers.txt "$INCLPROF" report --callers synthetic_function_1 many)
check_eq "report --callers: the first function's calls are the generator's" "$(first many.out)" \
  "$(awk '/ <thread start>$/ { print $1 }' many_callers.txt)"
grows "report --callers" "$few_kb" "$many_kb" $((asan * per_tree / 2))

few_kb=$(peak_kb few_cg.txt "$INCLPROF" export --format callgrind -o few.cg few)
many_kb=$(peak_kb many_cg.txt "$INCLPROF" export --format callgrind -o many.cg many)
# the self cost line after the function's name: line, Elapsed, Application, Calls
cg_self() { awk -v c="$2" 'p { print $c; exit } /^fn=\([0-9]*\) synthetic_function_1$/ { p = 1 }' "$1"; }
check_eq "callgrind: the first function's calls are the generator's" "$(first many.out)" \
  "$(cg_self many.cg 4)"
grows "export --format callgrind" "$few_kb" "$many_kb" $((asan * per_tree / 2))

for merge in "" --merge-threads; do
  few_kb=$(peak_kb few_folded.txt "$INCLPROF" export --format folded $merge -o few.folded few)
  many_kb=$(peak_kb many_folded.txt "$INCLPROF" export --format folded $merge -o many.folded many)
  check_eq "folded${merge:+ $merge}: the first function's Elapsed Exclusive is callgrind's" \
    "$(cg_self many.cg 2)" \
    "$(awk '{ v = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";") } f[n] == "synthetic_function_1" { t += v } END { print t }' many.folded)"
  grows "export --format folded${merge:+ $merge}" "$few_kb" "$many_kb" $((asan * per_tree / 2))
done

few_kb=$(peak_kb few_html.txt "$INCLPROF" export --format html -o few.html few)
many_kb=$(peak_kb many_html.txt "$INCLPROF" export --format html -o many.html many)
check_eq "html: the merged tree and every thread's are in the page" "1 500" \
  "$(grep -c '{"name":"all threads"' many.html) $(grep -o '{"name":"thread [0-9]*' many.html | wc -l)"
grows "export --format html" "$few_kb" "$many_kb" $((asan * per_tree / 2))
# the threads' paths merged: asked for, or because a sample set per thread
# would take 6 MiB
for opt in --merge-threads "--max-size 1000000"; do
  few_kb=$(peak_kb few_pprof.txt "$INCLPROF" export --format pprof $opt -o few.pb.gz few)
  many_kb=$(peak_kb many_pprof.txt "$INCLPROF" export --format pprof $opt -o many.pb.gz many)
  check_eq "pprof $opt: the first function's calls are the generator's" "$(first many.out)" \
    "$(pprof_top many.pb.gz -sample_index=calls | awk -F '\t' '$1 == "synthetic_function_1" { print $2 }')"
  grows "export --format pprof $opt" "$few_kb" "$many_kb" $((asan * per_tree / 2))
done
done_testing
