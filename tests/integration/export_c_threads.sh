#!/bin/sh
# export_c_threads.sh - a multi-threaded C program through every export format,
# each read back by an independent parser: go tool pprof's flat/cum equal the
# CSV's Exclusive/Inclusive exactly; the DevTools trace engine finds one slice
# per recorded call on every thread; callgrind_annotate's self/inclusive costs
# and totals equal ours; the folded stacks sum to the total.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"

cat >threads.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static volatile long sink;
static void leaf(int n) { for (int i = 0; i < n * 200; i++) sink += i; }
static void middle(int n) { leaf(n); leaf(n + 1); }
static void *worker(void *arg) {
  int n = (int)(long)arg;
  for (int i = 0; i < 20 * n; i++) middle(n);
  usleep(1000);
  return NULL;
}
int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  middle(3);
  printf("done\n");
  return 0;
}
EOF
check "viewers installed (go, callgrind_annotate, node + trace engine)" viewers_ready
check "compile with the plugin" cc_plugin threads threads.c -O0 -pthread
check "run" ./threads
for f in csv pprof chrome callgrind folded; do
  check "export --format $f" "$INCLPROF" export --format "$f"
done
"$INCLPROF" export -f csv --by thread -o by-thread.csv 2>/dev/null
"$INCLPROF" export -f csv --by process -o by-process.csv 2>/dev/null
"$INCLPROF" export -f pprof --merge-threads -o merged.pb.gz 2>/dev/null
total=$(csv_rows by-process.csv elapsed_inclusive_ns | awk '{ s += $1 } END { print s + 0 }')
check "the program made calls" test "$total" -gt 0

# pprof: flat = Elapsed Exclusive, cum = Elapsed Inclusive, per function.
csv_rows inclprof.csv function elapsed_exclusive_ns elapsed_inclusive_ns | grep -v "	0$" >csv-elapsed.txt
csv_rows inclprof.csv function application_exclusive_ns | grep -v '	0$' >csv-app.txt
check "go tool pprof -raw accepts the profile" pprof_raw inclprof.pb.gz
pprof_top inclprof.pb.gz >pprof-elapsed.txt
same_lines "pprof flat/cum = CSV Elapsed Exclusive/Inclusive" csv-elapsed.txt pprof-elapsed.txt
pprof_top inclprof.pb.gz -sample_index=application | cut -f1,2 | grep -v '	0$' >pprof-app.txt
same_lines "pprof flat (application) = CSV Application Exclusive" csv-app.txt pprof-app.txt
pprof_top merged.pb.gz >pprof-merged.txt
same_lines "pprof --merge-threads: the same flat/cum" csv-elapsed.txt pprof-merged.txt
check_eq "pprof labels every sample with its thread" 4 \
  "$(pprof_go -raw inclprof.pb.gz | grep -o 'tid:\[[0-9]*\]' | sort -u | wc -l)"

# Chrome trace: one slice per call on every thread, no engine errors.
trace_engine_load inclprof.trace.json >engine.txt
check_eq "trace engine: no errors" "0" "$(awk '/^threads/ { print $6 }' engine.txt)"
csv_rows by-thread.csv tid calls >calls-by-thread.txt
awk '$1 == "thread" { print $3 "\t" $4 }' engine.txt >slices-by-thread.txt
same_lines "trace engine: slices per thread = calls recorded" calls-by-thread.txt slices-by-thread.txt
check "trace engine: the worker's frames are named" grep -q '"leaf"' engine.txt

# callgrind: self = Exclusive, inclusive = Inclusive, totals = ours.
check "callgrind_annotate reads it without warnings" callgrind_annotate_clean callgrind.out.inclprof
callgrind_functions callgrind.out.inclprof --show=Elapsed | grep -v '	0$' | grep -v '^???:thread ' |
  sed 's/^[^:]*://' | sort >cg-self.txt
cut -f1,2 csv-elapsed.txt | grep -v '	0$' >csv-self.txt
same_lines "callgrind self = CSV Elapsed Exclusive" csv-self.txt cg-self.txt
callgrind_functions callgrind.out.inclprof --show=Elapsed --inclusive=yes | grep -v '^???:thread ' |
  sed 's/^[^:]*://' >cg-incl.txt
cut -f1,3 csv-elapsed.txt >csv-incl.txt
same_lines "callgrind inclusive = CSV Elapsed Inclusive" csv-incl.txt cg-incl.txt
check_eq "callgrind_annotate program total = session total" "$total" \
  "$(callgrind_annotate_clean callgrind.out.inclprof --show=Elapsed | awk '/PROGRAM TOTALS/ { gsub(/,/, "", $1); print $1 }')"

# folded: every line is "stack value" and the values sum to the total.
check_eq "folded: every line parses" 0 "$(grep -cvE '^[^ ].* [0-9]+$' inclprof.folded)"
check_eq "folded: values sum to the total" "$total" "$(awk '{ s += $NF } END { print s }' inclprof.folded)"
check "folded: stacks start at their thread" grep -q '^thread [0-9]* ([^)]*);worker;middle;leaf ' inclprof.folded
done_testing
