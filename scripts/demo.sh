#!/bin/sh
# demo.sh - the body of `make demo` (run after the build and `make examples`):
# profiles examples/wordfreq with `inclprof record`, prints what was recorded
# and the report, writes every export into OUT_DIR, then profiles the other two
# examples briefly, says how to open each file, and ends with one sentence on
# what this run shows (from its own CSV export).
#   usage: scripts/demo.sh BUILD_DIR OUT_DIR
set -eu
[ $# -eq 2 ] || { echo "usage: scripts/demo.sh BUILD_DIR OUT_DIR" >&2; exit 2; }
b=$1 out=$2
inclprof=$b/inclprof ex=$b/examples
for f in "$inclprof" "$ex/wordfreq/wordfreq" "$ex/cpp-inventory/cpp-inventory" "$ex/dlopen-filter/dlopen-host"; do
  [ -x "$f" ] || { echo "demo: $f: missing (run 'make demo', which builds it)" >&2; exit 1; }
done
rm -rf "$out" && mkdir -p "$out/files"
section() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { echo "\$ $*"; "$@"; }

section "1. Profile examples/wordfreq: 4 worker threads count words in 12 MB of generated text"
run "$inclprof" record -o "$out/wordfreq.data" -- "$ex/wordfreq/wordfreq" -d "$out/files"

section "2. What was recorded: transition mode, probe-cost compensation, threads, events"
run "$inclprof" info "$out/wordfreq.data"

section "3. The report: Elapsed and Application time, inclusive and exclusive, per function"
run "$inclprof" report --top 25 "$out/wordfreq.data"

section "3b. Where the non-Application time went: preempted, blocked, system calls, page faults"
run "$inclprof" report --wait --top 15 "$out/wordfreq.data"

section "4. Exports"
for fmt in pprof:wordfreq.pb.gz csv:wordfreq.csv callgrind:callgrind.out.wordfreq folded:wordfreq.folded; do
  run "$inclprof" export --format "${fmt%%:*}" -o "$out/${fmt#*:}" "$out/wordfreq.data"
done
# Every one of the millions of calls would make a trace viewers cannot load.
run "$inclprof" export --format chrome --min-duration 1us -o "$out/wordfreq.trace.json" "$out/wordfreq.data"
# Pictures: a flame graph page, speedscope (its timelines bounded like the
# Chrome trace) and Perfetto's protobuf, which holds every call.
run "$inclprof" export --format html -o "$out/wordfreq.html" "$out/wordfreq.data"
run "$inclprof" export --format speedscope --min-duration 1us -o "$out/wordfreq.speedscope.json" "$out/wordfreq.data"
run "$inclprof" export --format perfetto -o "$out/wordfreq.perfetto-trace" "$out/wordfreq.data"

section "5. The C++ example (classes, templates, exceptions) and the dlopen + filter example"
run "$inclprof" record -o "$out/cpp-inventory.data" -- "$ex/cpp-inventory/cpp-inventory"
run "$inclprof" export --format csv -o "$out/cpp-inventory.csv" "$out/cpp-inventory.data"
run "$inclprof" record -o "$out/dlopen-filter.data" -- "$ex/dlopen-filter/dlopen-host" "$ex/dlopen-filter/libshapes.so"
run "$inclprof" export --format csv -o "$out/dlopen-filter.csv" "$out/dlopen-filter.data"

section "How to read the values"
cat <<'TXT'
  Elapsed Inclusive    wall-clock time between entering and leaving a function, callees included
  Elapsed Exclusive    the part of it spent in the function's own code (callees excluded)
  Application Incl/Excl  the same, counting only intervals in which the kernel did nothing for
                       the thread (no system call, context switch or page fault): time spent in
                       write/read/fsync or waiting on a lock shows in Elapsed but not Application
  percentages          Elapsed over the session's total Elapsed time, Application over its
                       total Application time; probe cost is measured at start-up and removed
  report --wait        Elapsed - Application by cause (kevents mode): Preempted (runnable, waiting
                       for a CPU), Blocked (sleeping in the kernel: I/O, futex, sleep), Syscalls
                       (on-CPU kernel time around system calls), Faults (page faults: estimated
                       time, and their count)
TXT

section "How to open the files in $out/"
cat <<TXT
  $out/wordfreq.pb.gz         pprof:  go tool pprof -top $out/wordfreq.pb.gz
                              (or -http=:8080 for the web UI; flat = Exclusive, cum = Inclusive)
  $out/wordfreq.trace.json    Chrome trace: open https://ui.perfetto.dev (or chrome://tracing)
                              and load the file: one track per thread, Application time and the
                              wait breakdown in each slice's args
                              (calls under 1 us left out: --min-duration; all of them is > 1 GB)
  $out/wordfreq.csv           one row per function with every value: any spreadsheet, or
                              column -s, -t < $out/wordfreq.csv | less -S
  $out/callgrind.out.wordfreq kcachegrind $out/callgrind.out.wordfreq
                              (or: callgrind_annotate $out/callgrind.out.wordfreq)
  $out/wordfreq.folded        flame graph: flamegraph.pl $out/wordfreq.folded > flame.svg,
                              or drop it on https://www.speedscope.app
  $out/wordfreq.html          flame graph in any browser, offline: value switch, search, click
                              to zoom, hover for every value; the blue band in each frame is
                              its Application share of Elapsed
  $out/wordfreq.speedscope.json  drop it on https://www.speedscope.app: it opens on the
                              busiest thread's timeline; the merged call tree is a profile
                              of its own (calls under 1 us left out)
  $out/wordfreq.perfetto-trace   every call, 6x smaller than Chrome JSON: open it in
                              https://ui.perfetto.dev
  $out/*.data/                the raw traces: inclprof report|info|export DIR
TXT

# What this run shows, in one sentence: the calls, the function with the
# most Application Exclusive time (its own work on a CPU), and how much of the
# threads' summed Elapsed time was not Application time.
awk -F, -v wall="$("$inclprof" report --top 1 "$out/wordfreq.data" 2>/dev/null |
    sed -n 's/^ *wall time \([0-9.]* [a-z]*\)[ ;].*/\1/p')" '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { calls += $col["calls"]; el += $col["elapsed_exclusive_ns"]; app += $col["application_exclusive_ns"]
    if ($col["application_exclusive_ns"] > top) { top = $col["application_exclusive_ns"]; name = $col["function"] } }
  END {
    printf "\nThis run: wordfreq made %d calls in %s of wall time; %s did the most work of its own on a CPU (%.0f%% of all Application Exclusive time), and %.0f%% of the threads\x27 summed Elapsed time was not Application time (waiting for locks, I/O or a CPU: report --wait says which).\n",
      calls, wall, name, app ? 100 * top / app : 0, el ? 100 * (el - app) / el : 0
  }' "$out/wordfreq.csv"
