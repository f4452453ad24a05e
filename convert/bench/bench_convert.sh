#!/bin/sh
# bench_convert.sh INCLPROF GEN_TRACE WORKDIR OUT.md [PLUGIN] - converter
# throughput: generates synthetic inputs of 10 M and 100 M events
# (convert/bench/gen_trace.c, with a runtime gap after every batch as the
# runtime writes them): one trace file with 4 threads, and a session of 4
# one-thread files (as forked processes write); a session of 500 process
# traces of 200 000 events naming one table file of 20 000 functions
# (convert/bench/gen_session.c, beside GEN_TRACE: a test suite that starts a
# process per test), whose peak RSS shows memory bounded by the functions
# and call paths, not by the processes; a file of 1 G events with 4
# threads (3.4 GB; CONVERT_BIG=0, or less than 8 GB free, leaves it out,
# saying so); and, given the plugin, a
# trace recorded from examples/wordfreq built with it (5 threads of unequal
# work, functions defined as they are first called), and times
# `inclprof report --jobs J` on each for J in $CONVERT_JOBS (default "1 2"):
# wall clock to the microsecond, CPU and the rest from /usr/bin/time, the
# fastest of $CONVERT_RUNS runs (default 3); checks
# that every J prints the same report, and writes events/s (wall clock and
# CPU), the speed-up over the first J, the waits (voluntary context
# switches: a thread waiting for another) and peak RSS as a Markdown
# fragment.  Equal RSS for both sizes shows memory bounded by call paths,
# not events.  CONVERT_RT=1 (as root) runs the timed commands under
# SCHED_FIFO (chrt -f 10), so that other work on a loaded machine does not
# stretch their wall clock.  CONVERT_SIMD_OFF="NAME=INCLPROF..." names the
# command built with a SIMD path off: on the 100 M-event trace file each is
# timed with --jobs 2 (where the batches are checked and their code ranges
# taken) in $CONVERT_PAIRS runs (default 7), each paired with a run of
# INCLPROF just before or after it, and reported as the median of the pairs'
# CPU and wall ratios.  On the largest trace file it also times `info`
# (its index, the file's last bytes) against `info --scan` (every record),
# and on the 10 M-event one each timeline export (chrome, speedscope,
# perfetto, bounded by their default size) against the CSV export:
# $CONVERT_PAIRS rounds, the formats interleaved in each, medians.
set -eu
inclprof=$1 gen=$2 work=$3 out=$4 plugin=${5:-}
jobs_list=${CONVERT_JOBS:-1 2}
runs=${CONVERT_RUNS:-3}
rt=""
[ "${CONVERT_RT:-0}" = 0 ] || rt="chrt -f 10"
mkdir -p "$work"
rows=""
# timed INPUT LABEL: one row per J
timed() {
  input=$1 label=$2
  size=$(du -b -s "$input" | cut -f1)
  sync  # the generator's writeback must not run during the timed read
  find "$input" -type f -exec cat {} + > /dev/null  # every --jobs reads from the page cache alike
  base=""
  first=$(set -- $jobs_list; echo "$1")
  for j in $jobs_list; do
    : > "$work/times"
    for _ in $(seq "$runs"); do
      t0=$(date +%s%N)
      $rt /usr/bin/time -f "%U %S %M %w" -o "$work/time" "$inclprof" report "$input" --top 5 --jobs "$j" > "$work/report-$j.txt"
      t1=$(date +%s%N)
      echo "$(((t1 - t0) / 1000)) $(cat "$work/time")" >> "$work/times"
    done
    read -r wall_us user sys rss waits <<EOT
$(sort -n "$work/times" | head -1)
EOT
    cmp -s "$work/report-$first.txt" "$work/report-$j.txt" ||
      { echo "bench_convert: --jobs $j printed another report than --jobs $first" >&2; exit 1; }
    wall=$(awk -v u="$wall_us" 'BEGIN { printf "%.3f", u / 1e6 }')
    [ -n "$base" ] || base=$wall
    events=$(sed -n 's/.*events: \([0-9]*\).*/\1/p' "$work/report-$j.txt" | head -1)
    row=$(awk -v e="$events" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v b="$size" -v j="$j" -v b0="$base" -v l="$label" -v c="$waits" 'BEGIN {
      cpu = u + s; if (w < 0.001) w = 0.001; if (cpu < 0.001) cpu = 0.001;
      printf "| %d M | %s | %d | %.1f MB | %.3f s | %.2f s | %.1f M/s | %.1f M/s | %.2fx | %d | %.1f MB |", e / 1e6, l, j, b / 1e6, w, cpu, e / w / 1e6, e / cpu / 1e6, b0 / w, c, r / 1024 }')
    echo "$row"
    rows="$rows$row
"
  done
}
simd_rows=""
# one_run COMMAND INPUT: "CPU_SECONDS WALL_SECONDS" of one report --jobs 2
one_run() {
  t0=$(date +%s%N)
  $rt /usr/bin/time -f "%U %S" -o "$work/time" "$1" report "$2" --top 5 --jobs 2 > "$work/report-simd.txt"
  t1=$(date +%s%N)
  awk -v w="$(((t1 - t0) / 1000))" '{ printf "%.3f %.6f\n", $1 + $2, w / 1e6 }' "$work/time"
}
# median: the middle of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# simd INPUT: each CONVERT_SIMD_OFF command against INCLPROF in paired runs
simd() {
  input=$1
  events=$(sed -n 's/.*events: \([0-9]*\).*/\1/p' "$work/report-$first.txt" | head -1)
  for v in ${CONVERT_SIMD_OFF:-}; do
    name=${v%%=*} off=${v#*=}
    : > "$work/pairs"
    for i in $(seq "${CONVERT_PAIRS:-7}"); do
      if [ $((i % 2)) = 1 ]; then on=$(one_run "$inclprof" "$input"); offr=$(one_run "$off" "$input")
      else offr=$(one_run "$off" "$input"); on=$(one_run "$inclprof" "$input"); fi
      cmp -s "$work/report-$first.txt" "$work/report-simd.txt" ||
        { echo "bench_convert: the build without $name printed another report" >&2; exit 1; }
      echo "$on $offr" >> "$work/pairs"
    done
    row=$(awk -v e="$events" -v n="$name" -v pc="$(awk '{ print $3 / $1 }' "$work/pairs" | median)" \
      -v pw="$(awk '{ print $4 / $2 }' "$work/pairs" | median)" -v lo="$(awk '{ print $3 / $1 }' "$work/pairs" | sort -g | head -1)" \
      -v hi="$(awk '{ print $3 / $1 }' "$work/pairs" | sort -g | tail -1)" \
      -v con="$(awk '{ print $1 }' "$work/pairs" | median)" -v coff="$(awk '{ print $3 }' "$work/pairs" | median)" 'BEGIN {
      printf "| %s | %.1f M/s | %.1f M/s | %+.1f %% (%+.1f to %+.1f) | %+.1f %% |", n, e / con / 1e6, e / coff / 1e6,
        (pc - 1) * 100, (lo - 1) * 100, (hi - 1) * 100, (pw - 1) * 100 }')
    echo "$row"
    simd_rows="$simd_rows$row
"
  done
}
# wall_s COMMAND...: the command's wall clock in seconds (its output discarded)
wall_s() {
  t0=$(date +%s%N)
  $rt "$@" > /dev/null 2>&1 || true
  t1=$(date +%s%N)
  awk -v u="$(((t1 - t0) / 1000))" 'BEGIN { printf "%.6f\n", u / 1e6 }'
}
info_rows=""
# info_times INPUT: info from the index against info --scan
info_times() {
  size=$(du -b -s "$1" | cut -f1)
  : > "$work/info-idx"; : > "$work/info-scan"
  for _ in $(seq "$runs"); do
    wall_s "$inclprof" info "$1" >> "$work/info-idx"
    wall_s "$inclprof" info --scan "$1" >> "$work/info-scan"
  done
  idx=$(median < "$work/info-idx") scan=$(median < "$work/info-scan")
  info_rows=$(awk -v b="$size" -v i="$idx" -v s="$scan" 'BEGIN {
    printf "| %.1f MB | %.4f s | %.3f s | %.0fx |", b / 1e6, i, s, s / (i > 0.0001 ? i : 0.0001) }')
  echo "$info_rows"
}
export_rows=""
# export_times INPUT: CSV and each timeline export, interleaved rounds
export_times() {
  formats="csv chrome speedscope perfetto"
  for fmt in $formats; do : > "$work/exp-$fmt"; done
  for _ in $(seq "${CONVERT_PAIRS:-7}"); do
    for fmt in $formats; do
      wall_s "$inclprof" export -f "$fmt" -o "$work/out.$fmt" "$1" >> "$work/exp-$fmt"
    done
  done
  csv=$(median < "$work/exp-csv")
  for fmt in $formats; do
    t=$(median < "$work/exp-$fmt")
    row=$(awk -v f="$fmt" -v t="$t" -v c="$csv" -v b="$(wc -c < "$work/out.$fmt")" 'BEGIN {
      printf "| %s | %.1f MB | %.3f s | %.2fx |", f, b / 1e6, t, t / c }')
    echo "$row"
    export_rows="$export_rows$row
"
    rm -f "$work/out.$fmt"
  done
}
gen_session=${GEN_SESSION:-$(dirname "$gen")/gen_session}
session="$work/session-500"
rm -rf "$session" && mkdir -p "$session"
"$gen_session" "$session" 500 200000 20000 > /dev/null
timed "$session" "500 processes, 1 table file"
rm -rf "$session"
for n in 10000000 100000000; do
  trace="$work/convert-$n.ipb"
  "$gen" "$trace" "$n" 4 gaps > /dev/null
  timed "$trace" "1 file, 4 threads"
  [ "$n" != 10000000 ] || export_times "$trace"
  [ "$n" != 100000000 ] || simd "$trace"
  [ "${CONVERT_BIG:-1}" != 0 ] || info_times "$trace"
  rm -f "$trace"
  session="$work/session-$n"
  rm -rf "$session" && mkdir -p "$session"
  for k in 1 2 3 4; do
    "$gen" "$session/$k.ipb" $((n / 4)) 1 gaps > /dev/null
  done
  timed "$session" "4 files, 1 thread each"
  rm -rf "$session"
done
big_note=""
if [ "${CONVERT_BIG:-1}" != 0 ]; then
  free_kb=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
  if [ "$free_kb" -lt 8000000 ]; then
    big_note="The 1 G-event file was left out: $((free_kb / 1000)) MB free in $work, 8 GB needed."
    echo "bench_convert: $big_note" >&2
  else
    trace="$work/convert-1000000000.ipb"
    "$gen" "$trace" 1000000000 4 gaps > /dev/null
    timed "$trace" "1 file, 4 threads"
    info_times "$trace"
    rm -f "$trace"
  fi
fi
if [ -n "$plugin" ]; then
  src=$(cd "$(dirname "$0")/../.." && pwd)
  rm -rf "$work/wf" "$work/wf.data"
  env -u MAKEFLAGS -u MAKELEVEL make -s -C "$src/examples/wordfreq" O="$work/wf" \
    INCLPROF_PLUGIN="$plugin" INCLPROF_INCLUDE="$src/runtime" > /dev/null
  "$inclprof" record -o "$work/wf.data" -- "$work/wf/wordfreq" -d "$work/wf" > /dev/null 2>&1
  timed "$work/wf.data" "examples/wordfreq, recorded"
  rm -rf "$work/wf" "$work/wf.data"
fi
{
  echo "### Converter throughput (inclprof report --jobs J, synthetic traces${plugin:+ and a recorded one})"
  echo
  echo "| events | input | jobs | bytes | wall | CPU | events/s (wall) | events/s (CPU) | speed-up (wall) | waits | peak RSS |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s' "$rows"
  echo
  echo "Targets: >= 30 M events/s on one core, >= 1.8x with --jobs 2 on 2 cores, and flat memory"
  echo "(peak RSS the same at 10 M, 100 M and 1 G events, and for 500 processes a few MB over one;"
  echo "500 process traces of 200 000 events are read one after another, since they average under"
  echo "1 MB: --jobs does not apply to them). Every --jobs prints the same report;"
  echo "each row is the fastest of $runs runs${rt:+, under SCHED_FIFO ($rt)}."
  echo "Waits: voluntary context switches of that run (a thread of inclprof waiting for another)."
  [ -z "$big_note" ] || echo "$big_note"
  if [ -n "$simd_rows" ]; then
    echo
    echo "### SIMD paths (100 M events, 1 file, 4 threads, --jobs 2; ${CONVERT_PAIRS:-7} paired runs)"
    echo
    echo "| path off | events/s (CPU), with it | events/s (CPU), without it | CPU without it (median of pairs, range) | wall without it (median) |"
    echo "|---|---|---|---|---|"
    printf '%s' "$simd_rows"
    echo
    echo "avx2: the code range of a batch before it is replayed (model/replay_pool.c, built with IP_NO_AVX2);"
    echo "ssse3: a batch's varints decoded eight bytes at a time (read/batch_decode.c, built with IP_NO_SSSE3)."
    echo "A positive change: the build without the path needs more time."
  fi
  if [ -n "$info_rows" ]; then
    echo
    echo "### info: from the index against every record (the largest file, 4 threads)"
    echo
    echo "| bytes | info (its index) | info --scan | ratio |"
    echo "|---|---|---|---|"
    echo "$info_rows"
    echo
    echo "Medians of $runs runs each, wall clock."
  fi
  if [ -n "$export_rows" ]; then
    echo
    echo "### Export timing (10 M events, 1 file, 4 threads, default bounds)"
    echo
    echo "| format | output | wall (median) | against csv |"
    echo "|---|---|---|---|"
    printf '%s' "$export_rows"
    echo
    echo "Medians of ${CONVERT_PAIRS:-7} rounds, the formats interleaved in each round."
  fi
} > "$out"
cat "$out"
