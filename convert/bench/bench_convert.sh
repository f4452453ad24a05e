#!/bin/sh
# bench_convert.sh INCLPROF GEN_TRACE WORKDIR OUT.md - converter throughput:
# generates synthetic traces of 10 M and 100 M events with 4 threads
# (convert/bench/gen_trace.c), times `inclprof report --jobs J` on each for J
# in $CONVERT_JOBS (default "1 2") with /usr/bin/time, the fastest of
# $CONVERT_RUNS runs (default 3), checks that every J prints the same report,
# and writes events/s (wall clock and CPU), the speed-up over the first J and
# peak RSS as a Markdown fragment.  Equal RSS for both sizes shows memory
# bounded by call paths, not events.  CONVERT_RT=1 (as root) runs the timed
# commands under SCHED_FIFO (chrt -f 10), so that other work on a loaded
# machine does not stretch their wall clock.
set -eu
inclprof=$1 gen=$2 work=$3 out=$4
jobs_list=${CONVERT_JOBS:-1 2}
runs=${CONVERT_RUNS:-3}
rt=""
[ "${CONVERT_RT:-0}" = 0 ] || rt="chrt -f 10"
mkdir -p "$work"
rows=""
for n in 10000000 100000000; do
  trace="$work/convert-$n.ipb"
  "$gen" "$trace" "$n" 4
  size=$(wc -c < "$trace")
  sync  # the generator's writeback must not run during the timed read
  cat "$trace" > /dev/null  # every --jobs reads from the page cache alike
  base=""
  for j in $jobs_list; do
    : > "$work/times"
    for _ in $(seq "$runs"); do
      $rt /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$inclprof" report "$trace" --top 5 --jobs "$j" > "$work/report-$j.txt"
      cat "$work/time" >> "$work/times"
    done
    read -r wall user sys rss <<EOT
$(sort -n "$work/times" | head -1)
EOT
    first=$(set -- $jobs_list; echo "$1")
    cmp -s "$work/report-$first.txt" "$work/report-$j.txt" ||
      { echo "bench_convert: --jobs $j printed another report than --jobs $first" >&2; exit 1; }
    [ -n "$base" ] || base=$wall
    events=$(sed -n 's/.*events: \([0-9]*\).*/\1/p' "$work/report-$j.txt" | head -1)
    row=$(awk -v e="$events" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v b="$size" -v j="$j" -v b0="$base" 'BEGIN {
      cpu = u + s; if (w < 0.001) w = 0.001; if (cpu < 0.001) cpu = 0.001;
      printf "| %d M | %d | %.1f MB | %.2f s | %.2f s | %.1f M/s | %.1f M/s | %.2fx | %.1f MB |", e / 1e6, j, b / 1e6, w, cpu, e / w / 1e6, e / cpu / 1e6, b0 / w, r / 1024 }')
    echo "$row"
    rows="$rows$row
"
  done
  rm -f "$trace"
done
{
  echo "### Converter throughput (inclprof report --jobs J, synthetic trace, 4 threads)"
  echo
  echo "| events | jobs | file | wall | CPU | events/s (wall) | events/s (CPU) | speed-up (wall) | peak RSS |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s' "$rows"
  echo
  echo "Targets: >= 30 M events/s on one core, >= 1.8x with --jobs 2 on 2 cores, and flat memory"
  echo "(peak RSS the same at 10 M and 100 M events). Every --jobs prints the same report;"
  echo "each row is the fastest of $runs runs${rt:+, under SCHED_FIFO ($rt)}."
} > "$out"
cat "$out"
