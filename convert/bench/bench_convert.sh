#!/bin/sh
# bench_convert.sh INCLPROF GEN_TRACE WORKDIR OUT.md - converter throughput:
# generates synthetic traces of 10 M and 100 M events (convert/bench/gen_trace.c),
# times `inclprof report` on each with /usr/bin/time and writes events/s
# (wall clock and CPU) and peak RSS as a Markdown fragment.  Equal RSS for
# both sizes shows memory bounded by call paths, not events.
set -eu
inclprof=$1 gen=$2 work=$3 out=$4
mkdir -p "$work"
rows=""
for n in 10000000 100000000; do
  trace="$work/convert-$n.ipb"
  "$gen" "$trace" "$n" 4
  size=$(wc -c < "$trace")
  sync  # the generator's writeback must not run during the timed read
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$inclprof" report "$trace" --top 5 > "$work/report.txt"
  read -r wall user sys rss < "$work/time"
  events=$(sed -n 's/.*events: \([0-9]*\).*/\1/p' "$work/report.txt" | head -1)
  row=$(awk -v e="$events" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v b="$size" 'BEGIN {
    cpu = u + s; if (w < 0.001) w = 0.001; if (cpu < 0.001) cpu = 0.001;
    printf "| %d M | %.1f MB | %.2f s | %.2f s | %.1f M/s | %.1f M/s | %.1f MB |", e / 1e6, b / 1e6, w, cpu, e / w / 1e6, e / cpu / 1e6, r / 1024 }')
  echo "$row"
  rows="$rows$row
"
  rm -f "$trace"
done
{
  echo "### Converter throughput (inclprof report, synthetic trace, 4 threads)"
  echo
  echo "| events | file | wall | CPU | events/s (wall) | events/s (CPU) | peak RSS |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s' "$rows"
  echo
  echo "Target: >= 30 M events/s and flat memory (peak RSS the same at 10 M and 100 M events)."
} > "$out"
cat "$out"
