#!/bin/bash
# writer.sh - `make bench-writer`: what the writer thread changes for the
# program's threads.  bench/stall.c (1 thread, then 2 threads keeping both
# cores busy) runs uninstrumented, under inclprof with inline encoding
# (INCLPROF_WRITER=inline), with the writer thread (INCLPROF_WRITER=thread)
# and with the default auto policy (inline while every CPU is busy), BENCH_RUNS times
# round-robin; the table gives medians of the cost per call, the longest
# stall of a thread, the stalls over 5 us and 50 us, and, from the trace, how
# long each flush or hand-off held the thread (its Gap records: median, 90th
# percentile, longest) and how many buffers were encoded inline.  The uninstrumented rows are the machine's own
# noise (preemption, interrupts).
#   usage: bench/writer.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_RUNS (5), BENCH_STALL_ITERS (20000000 per thread)
set -u
[ $# -eq 3 ] || { echo "usage: bench/writer.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$1 W=$2
OUT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 1
SRC=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${BENCH_RUNS:-5} ITERS=${BENCH_STALL_ITERS:-20000000}
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
gcc -O2 -g "$SRC/bench/stall.c" -o plain -lpthread &&
gcc -O2 -g -fplugin="$B/inclprof.so" "$SRC/bench/stall.c" -o ip -lpthread &&
gcc -O2 -I"$SRC/convert" -I"$SRC/include/inclprof" -I"$B/gen" -o trace_dump \
  "$SRC/tests/programs/runtime/trace_dump.c" "$B/libipconvert.a" -lprotobuf-c -ldeflate -lz || exit 1
VARIANTS=(plain inline writer auto)
declare -A CMD=([plain]="./plain" [inline]="INCLPROF_WRITER=inline $B/inclprof record --transitions kevents -o t.data -- ./ip"
  [writer]="INCLPROF_WRITER=thread $B/inclprof record --transitions kevents -o t.data -- ./ip"
  [auto]="$B/inclprof record --transitions kevents -o t.data -- ./ip")
declare -A LABEL=([plain]="no instrumentation" [inline]="inclprof, inline encoding" [writer]="inclprof, writer thread (INCLPROF_WRITER=thread)"
  [auto]="inclprof, the default auto (inline while every CPU is busy)")
declare -A R
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END{if(NR==0)exit 1; print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
for ((r = 1; r <= RUNS; r++)); do
  for th in 1 2; do
    for v in "${VARIANTS[@]}"; do
      echo "bench-writer: run $r/$RUNS: $v, $th thread(s)" >&2
      rm -rf t.data
      sh -c "${CMD[$v]} $th $ITERS" >out 2>err || { echo "bench-writer: $v failed: $(tail -n1 err)" >&2; continue; }
      line=$(grep '^work_ns=' out)
      for f in work_ns max_stall_ns stalls_5us stalls_50us; do
        R[$v/$th/$f]="${R[$v/$th/$f]:-} $(echo "$line" | sed -n "s/.*$f=\([0-9]*\).*/\1/p")"
      done
      calls=$(echo "$line" | sed -n 's/.*calls=\([0-9]*\).*/\1/p')
      if [ "$v" != plain ]; then
        ./trace_dump t.data/*.ipb >dump 2>/dev/null
        tps=$(sed -n 's/^header .* tps=\([0-9]*\) .*/\1/p' dump | head -n1)
        # shellcheck disable=SC2046
        set -- $(sed -n 's/^gap .*ticks=//p' dump | sort -n | awk -v t="${tps:-1}" '{v[NR] = $1 / t * 1e9}
          END { k = int(NR * 0.9); if (k < 1) k = 1; if (NR) printf "%.0f %.0f %.0f", v[int((NR + 1) / 2)], v[k], v[NR] }')
        R[$v/$th/g50]="${R[$v/$th/g50]:-} ${1:-}" R[$v/$th/g90]="${R[$v/$th/g90]:-} ${2:-}" R[$v/$th/gmax]="${R[$v/$th/gmax]:-} ${3:-}"
        R[$v/$th/batches]="${R[$v/$th/batches]:-} $(grep -c '^batch ' dump)"
        R[$v/$th/inline]="${R[$v/$th/inline]:-} $(sed -n 's/^trailer .* inline=\([0-9]*\) crowded=\([0-9]*\).*/\1 \2/p' dump | tail -n1 | awk '{print $1 + $2}')"
      fi
    done
  done
done
{
echo "## The writer thread: stalls and cost"
echo
echo "\`bench/writer.sh\` (\`make bench-writer\`): \`bench/stall.c THREADS $ITERS\` (a small function called"
echo "$ITERS times per thread, the TSC read after every call), kevents mode, medians of $RUNS runs."
echo "*ns/call*: work time per call of the slowest thread (2 threads: both cores busy, the writer competes"
echo "with them). *longest stall*: the longest gap between two calls of a thread (preemption included)."
echo "*hold*: the Gap records, how long each flush (inline) or hand-off (writer thread) held the thread:"
echo "median, 90th percentile and longest (inline fallbacks included)."
echo
echo "| threads | method | ns/call | longest stall µs | stalls > 5 µs | stalls > 50 µs | buffers | encoded inline | hold p50 µs | hold p90 µs | hold max µs |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for th in 1 2; do
  for v in "${VARIANTS[@]}"; do
    [ -n "${R[$v/$th/work_ns]:-}" ] || continue
    m() { echo "${R[$v/$th/$1]:-}" | median || echo "–"; }
    awk -v th="$th" -v l="${LABEL[$v]}" -v w="$(m work_ns)" -v n="$((th * ITERS))" -v mx="$(m max_stall_ns)" \
        -v s5="$(m stalls_5us)" -v s50="$(m stalls_50us)" -v b="$(m batches)" -v i="$(m inline)" \
        -v g50="$(m g50)" -v g90="$(m g90)" -v gmax="$(m gmax)" 'BEGIN{
      us = "%.1f"
      printf "| %d | %s | %.1f | %.0f | %s | %s | %s | %s | %s | %s | %s |\n", th, l, w/(n/th), mx/1e3, s5, s50, b, i,
        g50 == "–" ? "–" : sprintf(us, g50/1e3), g90 == "–" ? "–" : sprintf(us, g90/1e3),
        gmax == "–" ? "–" : sprintf(us, gmax/1e3) }'
  done
done
echo
} >"$OUT"
cat "$OUT"
