#!/bin/sh
# fuzz.sh - STRESS_FUZZ_RUNS (default 10 M) inputs through the trace reader and
# replay: the libFuzzer harness (tests/fuzz/fuzz_trace.c, ASan + UBSan) with
# the structure-aware mutator, on two workers, started from the corpus in
# tests/fuzz/corpus.  Any crash, sanitizer report, leak or broken invariant
# stops a worker and leaves a crash-* file; the test then fails.
# FUZZ_TRACE is the harness binary.
. "$INCLPROF_SRC/tests/lib.sh"
runs=${STRESS_FUZZ_RUNS:-10000000} jobs=${STRESS_FUZZ_JOBS:-2}
mkdir corpus
start=$(date +%s)
ASAN_OPTIONS=malloc_context_size=0:quarantine_size_mb=1 "$FUZZ_TRACE" -jobs="$jobs" \
  -workers="$jobs" -runs=$((runs / jobs)) -max_len=4096 -timeout=10 -rss_limit_mb=0 \
  -malloc_limit_mb=0 -print_final_stats=1 -artifact_prefix="$T_DIR/" corpus \
  "$INCLPROF_SRC/tests/fuzz/corpus" >main.log 2>&1
secs=$(($(date +%s) - start))
executed=$(cat fuzz-*.log | awk '/^stat::number_of_executed_units:/ { s += $NF } END { print s + 0 }')
check "the fuzzer ran $runs inputs (ran $executed)" test "$executed" -ge "$runs"
check_eq "no crash, sanitizer report or leak" "" "$(ls crash-* leak-* timeout-* oom-* 2>/dev/null)"
check_eq "no sanitizer error in the logs" 0 "$(cat fuzz-*.log | grep -c -E 'ERROR: (Address|UndefinedBehavior|Leak)Sanitizer|runtime error:')"
if [ "$T_FAILS" -ne 0 ]; then
  for f in crash-* leak-* timeout-* oom-*; do [ -f "$f" ] && cp "$f" "$INCLPROF_SRC/"; done
  tail -n 40 fuzz-*.log
fi
cov=$(cat fuzz-*.log | sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' | sort -n | tail -1)
echo "figure: fuzz: $executed inputs through the trace reader and replay in $secs s ($((executed / (secs + 1))) per second on $jobs workers, ASan + UBSan), coverage $cov edges; 0 crashes, 0 sanitizer errors"
done_testing
