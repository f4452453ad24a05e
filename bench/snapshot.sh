#!/bin/bash
# snapshot.sh - `make bench-snapshot`: what record --snapshot-if costs on
# call-heavy code.  bench/callheavy.c (mixed: recursion and a loop of small
# calls) runs under the ring policy alone (--max-size 64M --max-size-policy
# ring) and under the same ring with --snapshot-if watching its hottest
# function (rec>1s: every return of rec is timed, none is slow), BENCH_RUNS
# times each, the two in turn; the table gives the medians of the CPU time
# per call (every thread: the program's and the runtime's writer, whose walk
# of the frames written does the timing) and of the workload's own time, and
# the median of the paired ratios.  The probes are the same in both.
#   usage: bench/snapshot.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_RUNS (7), BENCH_DEPTH (27), BENCH_LOOPS (2000000)
set -u
[ $# -eq 3 ] || { echo "usage: bench/snapshot.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$1 W=$2
OUT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 1
SRC=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${BENCH_RUNS:-7} DEPTH=${BENCH_DEPTH:-27} LOOPS=${BENCH_LOOPS:-2000000}
CG_DEPTH=${BENCH_CG_DEPTH:-22} CG_LOOPS=${BENCH_CG_LOOPS:-200000}
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
gcc -O2 -g -fplugin="$B/inclprof.so" "$SRC/bench/callheavy.c" -o ip -lpthread || exit 1
field() { tr ' ' '\n' <"$2" | sed -n "s/^$1=//p"; }
cpu() { sed -n 's/^process_cpu=//p' "$1" | awk '{ printf "%.0f", ($1 + $2) * 1e9 }'; }
median() { sort -g | awk '{v[NR]=$1} END{if(NR==0)exit 1; print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
: >ring.txt; : >snap.txt; : >ratio.txt
for ((r = 1; r <= RUNS; r++)); do
  echo "bench-snapshot: run $r/$RUNS" >&2
  rm -rf a.data b.data
  /usr/bin/time -f 'process_cpu=%U %S' -o a.time "$B/inclprof" record -o a.data --max-size 64M \
    --max-size-policy ring -- ./ip "$DEPTH" "$LOOPS" mixed >a.out 2>/dev/null
  /usr/bin/time -f 'process_cpu=%U %S' -o b.time "$B/inclprof" record -o b.data --max-size 64M \
    --snapshot-if 'rec>1s' -- ./ip "$DEPTH" "$LOOPS" mixed >b.out 2>/dev/null
  ca=$(cpu a.time) cb=$(cpu b.time) n=$(field calls a.out)
  wa=$(field work_ns a.out) wb=$(field work_ns b.out)
  [ -n "$ca" ] && [ -n "$cb" ] && [ -n "$n" ] || { echo "bench-snapshot: a run failed" >&2; continue; }
  echo "$ca $wa $n" >>ring.txt
  echo "$cb $wb $n" >>snap.txt
  awk -v a="$ca" -v b="$cb" 'BEGIN { printf "%.4f\n", b / a }' >>ratio.txt
done
# Instructions of the whole process under callgrind: $1 the snapshot condition ("" for none).
instructions() {
  rm -rf cg.data && mkdir cg.data
  env INCLPROF_OUTPUT=cg.data INCLPROF_TRANSITIONS=none INCLPROF_WRITER=inline INCLPROF_MAX_SIZE=64M INCLPROF_MAX_SIZE_POLICY=ring \
    INCLPROF_SNAPSHOT_IF="$1" LD_PRELOAD="$B/libinclprof.so" valgrind --tool=callgrind \
    --callgrind-out-file=cg.out ./ip "$CG_DEPTH" "$CG_LOOPS" mixed >cg.prog 2>cg.err
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' cg.err
}
cg_ring=$(instructions "") cg_snap=$(instructions 'rec>1s')
cg_events=$(($(field calls cg.prog) * 2))
per() { awk -v k="$2" '{ printf "%.2f\n", $k / $3 }' "$1" | median; }
snaps=$(ls b.data/snapshots 2>/dev/null | wc -l)
{
echo "## Snapshots of slow calls: the cost of watching a function"
echo
echo "\`bench/snapshot.sh\` (\`make bench-snapshot\`): \`bench/callheavy.c $DEPTH $LOOPS mixed\` ($(head -n1 ring.txt | cut -d' ' -f3) calls),"
echo "recorded with a 64M ring, alone and with \`--snapshot-if 'rec>1s'\` (its hottest function,"
echo "every return timed, none slow: $snaps snapshots), $RUNS runs each in turn; medians. Load: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| recording | process CPU ns per call (all threads) | workload ns per call |"
echo "|---|---:|---:|"
echo "| ring (--max-size 64M --max-size-policy ring) | $(per ring.txt 1) | $(per ring.txt 2) |"
echo "| ring and --snapshot-if 'rec>1s' | $(per snap.txt 1) | $(per snap.txt 2) |"
echo
echo "Median of the paired CPU ratios (watched / ring alone): $(median <ratio.txt)."
echo
echo "Instructions of the whole process (callgrind, \`callheavy $CG_DEPTH $CG_LOOPS mixed\`, $cg_events events,"
echo "\`INCLPROF_TRANSITIONS=none INCLPROF_WRITER=inline\`): $cg_ring with the ring alone, $cg_snap watching \`rec\`:"
echo "$(awk -v a="$cg_ring" -v b="$cg_snap" -v e="$cg_events" 'BEGIN { printf "%.1f", (b - a) / e }') more per event, all of it in the ring's walk of the frames written."
} >"$OUT"
cat "$OUT"
