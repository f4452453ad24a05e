#!/bin/bash
# encode.sh - `make bench-encode`: what encoding one full buffer of 16 384
# events costs (bench/encode_bench.c: runtime/produce/flush.c's ip_encode_batch, its
# CRC and write, and readying the buffer for reuse), for a call-heavy
# program and for one whose calls spread over 400 functions.  The time is
# the best of BENCH_ENCODE_RUNS runs (default 200) on this machine; the
# instruction count (valgrind --tool=callgrind, 4 runs, counting only the
# encoding) does not depend on the load.  Writes a Markdown fragment.
#   usage: bench/encode.sh BENCH_BINARY WORK_DIR OUT_MD
set -u
[ $# -eq 3 ] || { echo "usage: bench/encode.sh BENCH_BINARY WORK_DIR OUT_MD" >&2; exit 2; }
BIN=$1 W=$2 OUT=$3 RUNS=${BENCH_ENCODE_RUNS:-200}
rm -rf "$W" && mkdir -p "$W" || exit 1
val() { sed -n "s/^$1 //p" "$2"; }
{
  echo "## Encoding a full buffer (\`make bench-encode\`)"
  echo
  echo "bench/encode_bench.c: one buffer of 16 384 events of a made-up call tree: the gids, the batch,"
  echo "its CRC, its write() and readying the buffer for reuse, as the writer thread does."
  echo
  echo "| program | instructions per event (callgrind) | ns per event (best of $RUNS) | µs per buffer | bytes per event |"
  echo "|---|---:|---:|---:|---:|"
} >"$OUT"
for kind in callheavy spread; do
  "$BIN" "$W/$kind" $kind "$RUNS" >"$W/$kind.txt" || { echo "bench-encode: $BIN $kind failed" >&2; exit 1; }
  ir="(valgrind missing)"
  if command -v valgrind >/dev/null 2>&1; then
    if valgrind --tool=callgrind --toggle-collect=encode_one --callgrind-out-file="$W/$kind.cg" \
        "$BIN" "$W/$kind-cg" $kind 4 >"$W/$kind-cg.txt" 2>"$W/$kind-cg.err"; then
      total=$(sed -n 's/^summary: *//p;s/^totals: *//p' "$W/$kind.cg" | head -n1)
      ir=$(awk -v t="$total" -v n="$(val events "$W/$kind-cg.txt")" 'BEGIN{printf "%.1f", t / (n * 4)}')
    else
      ir="(callgrind failed: $(tail -n1 "$W/$kind-cg.err"))"
    fi
  fi
  echo "| $kind | $ir | $(val ns_per_event "$W/$kind.txt") | $(val us_per_buffer "$W/$kind.txt") | $(val bytes_per_event "$W/$kind.txt") |" >>"$OUT"
done
