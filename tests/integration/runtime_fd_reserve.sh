#!/bin/sh
# runtime_fd_reserve.sh - a program close to its descriptor limit (ulimit -n
# 256) opens 190 files, then runs 300 threads alive at once that each make a
# pipe, then opens 49 more files, which leaves no descriptor under inclprof
# with sampling (the runtime keeps its own for the process and the main
# thread).  Under inclprof (kevents: a few descriptors per live thread) it
# must do exactly what it does in a plain run: the runtime
# keeps 64 descriptors for the program, so those 300 threads go without a
# transition counter (and, with sampling, get the timer sampler), and the
# trace says so per thread; a single thread without a counter is named in
# the singular.
. "$INCLPROF_SRC/tests/lib.sh"
src="$INCLPROF_SRC/tests/programs/runtime/fd_limit.c"
cc_plugin fd_limit "$src" -O2 -pthread || { fail "build fd_limit"; exit 1; }
gcc -O2 -pthread -o fd_limit_plain "$src" || { fail "build fd_limit_plain"; exit 1; }

(ulimit -n 256 && exec ./fd_limit_plain 20 190 300 49) >plain.out 2>plain.err
plain_rc=$?
check_eq "plain run succeeds" 0 "$plain_rc"

(ulimit -n 256 && exec "$INCLPROF" record -o out --transitions kevents -- ./fd_limit 20 190 300 49) \
  >prof.out 2>prof.err
check_eq "profiled run: the program's exit status" "$plain_rc" "$?"
check_eq "profiled run: the program's output" "$(cat plain.out)" "$(cat prof.out)"
check_eq "profiled run: stderr is record's summary only" \
  "inclprof: 1 trace file written to out/ (status 0)" "$(cat prof.err)"

"$INCLPROF" info out >info 2>&1
check_eq "info reads the trace" 0 "$?"
if grep -q '^transitions:  kevents' info; then
  check_eq "info: the 300 threads started near the limit have no counter" \
    "              300 threads without a counter (fewer than 64 file descriptors free): their Application values equal Elapsed values" \
    "$(grep 'threads without a counter' info)"
  check_eq "info: all 321 threads are in the trace" "threads:      321" "$(grep '^threads: ' info)"
  "$INCLPROF" report --by thread out >report 2>&1
  check_eq "report: a warning names the cause" \
    "warning:      out/$(basename out/*.ipb): 300 threads without a transition counter (fewer than 64 file descriptors free); their Application values equal Elapsed values" \
    "$(grep 'without a transition counter' report)"
  check_eq "report --by thread: 300 rows marked" 300 "$(grep -c '\[no transition counter\]$' report)"
  # One thread without a counter: a single-threaded program under ulimit -n 16.
  cc_plugin calls -O2 "$INCLPROF_SRC/tests/programs/runtime/thousand_calls.c" ||
    fail "build thousand_calls"
  (ulimit -n 16 && exec "$INCLPROF" record -o out3 --transitions kevents -- ./calls) >/dev/null 2>&1
  check_eq "info: one thread without a counter is named in the singular" \
    "              1 thread without a counter (fewer than 64 file descriptors free): their Application values equal Elapsed values" \
    "$("$INCLPROF" info out3 2>&1 | grep 'without a counter')"
  check_eq "report: so is its warning" \
    "warning:      out3/$(basename out3/*.ipb): 1 thread without a transition counter (fewer than 64 file descriptors free); their Application values equal Elapsed values" \
    "$("$INCLPROF" report out3 2>&1 | grep 'without a transition counter')"
else
  ok "kevents unavailable here ($(grep -A1 '^transitions:' info | tail -1 | cut -c1-120)): the per-thread checks are skipped"
fi
# With the perf sampler too (one more descriptor per thread): those threads
# get the timer sampler, which takes none.  The main thread's own sampler
# event is one more descriptor for the process's life (12 of the runtime's
# then, 11 without), so the program opens one file fewer at the end, in the
# plain run too.  Either run leaves 3 descriptors under the limit for those
# the test inherits beyond 0, 1 and 2 (a test harness's, a terminal's): the
# runs here fail with a fourth.
(ulimit -n 256 && exec ./fd_limit_plain 20 190 300 48) >plain2.out 2>plain2.err
plain2_rc=$?
(ulimit -n 256 && exec "$INCLPROF" record -o out2 --transitions kevents --sample-hz 200 -- \
  ./fd_limit 20 190 300 48) >prof2.out 2>prof2.err
check_eq "profiled run with sampling: the program's exit status" "$plain2_rc" "$?"
check_eq "profiled run with sampling: the program's output" "$(cat plain2.out)" "$(cat prof2.out)"
check_eq "profiled run with sampling: stderr is record's summary only" \
  "inclprof: 1 trace file written to out2/ (status 0)" "$(cat prof2.err)"
done_testing
