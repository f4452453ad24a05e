#!/bin/sh
# export_cli.sh - `inclprof export` as a command: default and explicit outputs,
# stdout, the Chrome size bounds as the DevTools trace engine sees them,
# --thread and --process in every format and in report, --raw, and one-line
# errors that leave no file behind.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"

cat >two.c <<'EOF'
#include <pthread.h>
static volatile long sink;
static void tick(int n) { for (int i = 0; i < n; i++) sink += i; }
static void *worker(void *arg) { (void)arg; for (int i = 0; i < 30; i++) tick(1000 * (i % 3 + 1)); return 0; }
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  for (int i = 0; i < 10; i++) tick(100);
  pthread_join(t, 0);
  return 0;
}
EOF
# one_line_error DESCRIPTION EXPECTED_STATUS COMMAND...: fails with that status and one stderr line
one_line_error() {
  d=$1; want=$2; shift 2
  "$@" >out.txt 2>err.txt; rc=$?
  if [ "$rc" = "$want" ] && [ "$(wc -l <err.txt)" = 1 ] && [ ! -s out.txt ]; then ok "$d: $(cat err.txt)"
  else fail "$d: status $rc (want $want), stderr: $(head -3 err.txt | tr '\n' '|')"; fi
}
check "viewers installed" viewers_ready
check "compile with the plugin" cc_plugin two two.c -O0 -pthread
check "run under inclprof record" "$INCLPROF" record ./two
"$INCLPROF" export -f csv --by thread -o threads.csv 2>/dev/null
worker_tid=$(csv_rows threads.csv pid tid | awk -F '\t' '$1 != $2 { print $2 }')
worker_calls=$(csv_rows threads.csv tid calls | awk -F '\t' -v t="$worker_tid" '$1 == t { print $2 }')
all_calls=$(csv_rows threads.csv calls | awk '{ s += $1 } END { print s }')
check_eq "the worker thread made 31 calls" 31 "$worker_calls"

# Outputs.
check "-o FILE" "$INCLPROF" export -f folded -o stacks.txt
check "-o FILE written, no .part left" sh -c 'test -s stacks.txt && ! ls *.part 2>/dev/null'
check_eq "-o - writes to stdout only" "$(cat stacks.txt)" "$("$INCLPROF" export -f folded -o - 2>/dev/null)"
check_eq "nothing on stderr with -o -" "" "$("$INCLPROF" export -f folded -o - 2>&1 >/dev/null)"
"$INCLPROF" export -f folded inclprof.data 2>/dev/null
check "default output name for folded" test -s inclprof.folded
check_eq "an explicit directory argument reads the same traces" "$(cat stacks.txt)" "$(cat inclprof.folded)"

# Chrome bounds, as the trace engine sees them.
"$INCLPROF" export -f chrome -o all.json 2>/dev/null
trace_engine_load all.json >all.txt
check_eq "all $all_calls calls are slices" "threads 2 slices $all_calls errors 0" "$(head -1 all.txt)"
"$INCLPROF" export -f chrome --max-events 5 -o five.json 2>err.txt
check_eq "--max-events 5: 5 slices" "5" "$(trace_engine_load five.json | awk 'NR == 1 { print $4 }')"
durations() { python3 -c 'import json,sys; print(" ".join(str(e["dur"]) for e in sorted((e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"), key=lambda e: -e["dur"])[:int(sys.argv[2])]))' "$@"; }
check_eq "--max-events 5: the 5 longest calls" "$(durations all.json 5)" "$(durations five.json 5)"
check "--max-events says what it kept and left out" \
  grep -q "all $all_calls calls would take .*, over --max-events 5: kept the 5 longest (.* and longer, .*), left out $((all_calls - 5)); more with a larger --max-events N or --min-duration/--time-range" err.txt
check_eq "--max-events: one line on stderr besides 'wrote'" 2 "$(wc -l <err.txt)"
"$INCLPROF" export -f chrome --max-size 0 -o nobound.json 2>/dev/null
check_eq "--max-size 0 writes the same as the default bound on a small trace" "$(cat all.json)" "$(cat nobound.json)"
"$INCLPROF" export -f chrome --thread "$worker_tid" -o worker.json 2>/dev/null
check_eq "--thread: only the worker's 31 slices" "threads 1 slices 31 errors 0" "$(trace_engine_load worker.json | head -1)"
longest=$(python3 -c 'import json,sys; print(max(e["dur"] for e in json.load(open("all.json"))["traceEvents"] if e["ph"] == "X"))')
"$INCLPROF" export -f chrome --min-duration "${longest}us" -o long.json 2>/dev/null
check_eq "--min-duration of the longest call: 1 slice" "1" "$(grep -c '"ph":"X"' long.json)"
end=$(python3 -c 'import json; print(max(e["ts"] + e["dur"] for e in json.load(open("all.json"))["traceEvents"] if e["ph"] == "X"))')
"$INCLPROF" export -f chrome --time-range "${end}us:" -o none.json 2>/dev/null
check_eq "--time-range after the last call: no slices" "0" "$(grep -c '"ph":"X"' none.json)"
"$INCLPROF" export -f chrome --time-range ":${end}us" -o range.json 2>/dev/null
check_eq "--time-range over the whole run: every slice" "$all_calls" "$(grep -c '"ph":"X"' range.json)"

# --thread and --raw in the tree formats.
"$INCLPROF" export -f pprof --thread "$worker_tid" -o worker.pb.gz 2>/dev/null
check_eq "pprof --thread: samples of that thread only" "tid:[$worker_tid]" \
  "$(pprof_go -raw worker.pb.gz | grep -o 'tid:\[[0-9]*\]' | sort -u)"
"$INCLPROF" export -f csv --by thread --thread "$worker_tid" -o worker.csv 2>/dev/null
check_eq "csv --thread: the worker's row alone" "$worker_tid 31" "$(csv_rows worker.csv tid calls | tr '\t' ' ')"
"$INCLPROF" export -f csv --by function --thread "$worker_tid" -o worker-fn.csv 2>/dev/null
check_eq "csv --thread --by function: the worker's 30 tick and 1 worker calls" "tick 30|worker 1" \
  "$(csv_rows worker-fn.csv function calls | tr '\t' ' ' | sort | paste -sd '|')"
pid=$(csv_rows threads.csv pid | sort -u)
check_eq "csv --process: both threads" "$(cat threads.csv)" \
  "$("$INCLPROF" export -f csv --by thread --process "$pid" -o - 2>/dev/null)"
folded_worker=$("$INCLPROF" export -f folded --thread "$worker_tid" -o - 2>/dev/null | awk '{ s += $NF } END { print s }')
folded_process=$("$INCLPROF" export -f folded --process "$pid" -o - 2>/dev/null | awk '{ s += $NF } END { print s }')
folded_all=$(awk '{ s += $NF } END { print s }' stacks.txt)
check_eq "folded --process: every thread of the one process" "$folded_all" "$folded_process"
check "folded --thread: the worker alone, less than all ($folded_worker < $folded_all)" test "$folded_worker" -lt "$folded_all"
check_eq "report --thread: one row, the worker's 31 calls" "31 $pid/$worker_tid" \
  "$("$INCLPROF" report --by thread --thread "$worker_tid" | awk '/\(two\)$/ { print $1, $(NF - 1) }')"
check_eq "report --process: both threads" 2 \
  "$("$INCLPROF" report --by thread --process "$pid" | grep -c '(two)$')"
compensated=$(awk '{ s += $NF } END { print s }' stacks.txt)
raw=$("$INCLPROF" export -f folded --raw -o - 2>/dev/null | awk '{ s += $NF } END { print s }')
check "--raw keeps the probe cost: more time than compensated ($raw > $compensated)" test "$raw" -gt "$compensated"

# Errors: one line, a status, no output file.
one_line_error "no --format" 2 "$INCLPROF" export
one_line_error "unknown format" 2 "$INCLPROF" export -f svg
one_line_error "option for another format" 2 "$INCLPROF" export -f pprof --max-events 3
one_line_error "missing trace" 1 "$INCLPROF" export -f pprof -o x.pb.gz no-such-dir
printf 'not a trace at all' >bogus.ipb
one_line_error "not a trace" 1 "$INCLPROF" export -f callgrind -o x.out bogus.ipb
one_line_error "unknown thread" 1 "$INCLPROF" export -f pprof -o x.pb.gz --thread 1
one_line_error "unknown process" 1 "$INCLPROF" export -f csv -o x.csv --process 1
one_line_error "time range outside chrome" 2 "$INCLPROF" export -f csv --time-range 1ms:2ms
one_line_error "samples without sampling" 1 "$INCLPROF" export -f folded -o x.folded --value samples
one_line_error "unwritable output" 1 "$INCLPROF" export -f pprof -o no-such-dir/x.pb.gz
check "failed exports leave no file" sh -c '! ls x.* *.part 2>/dev/null'
check "--help" sh -c '"$INCLPROF" export --help | grep -q "^usage: inclprof export"'
done_testing
