#!/bin/bash
# encode.sh - `make bench-encode`: what encoding one full buffer of 16 384
# events costs (bench/encode_bench.c: runtime/flush.c's ip_encode_batch, its
# CRC and write, and readying the buffer for reuse).  The time is the best of
# BENCH_ENCODE_RUNS runs (default 200) on this machine; the instruction count
# (valgrind --tool=callgrind, 4 runs, counting only the encoding) does not
# depend on the load.  Writes a Markdown fragment.
#   usage: bench/encode.sh BENCH_BINARY WORK_DIR OUT_MD
set -u
[ $# -eq 3 ] || { echo "usage: bench/encode.sh BENCH_BINARY WORK_DIR OUT_MD" >&2; exit 2; }
BIN=$1 W=$2 OUT=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
"$BIN" "$W/native" "${BENCH_ENCODE_RUNS:-200}" >"$W/native.txt" || { echo "bench-encode: $BIN failed" >&2; exit 1; }
val() { sed -n "s/^$1 //p" "$2"; }
ir="(valgrind missing)"
if command -v valgrind >/dev/null 2>&1; then
  runs=4
  if valgrind --tool=callgrind --toggle-collect=encode_one --callgrind-out-file="$W/cg.out" \
      "$BIN" "$W/cg" $runs >"$W/cg.txt" 2>"$W/cg.err"; then
    total=$(sed -n 's/^summary: *//p;s/^totals: *//p' "$W/cg.out" | head -n1)
    ir=$(awk -v t="$total" -v n="$(val events "$W/cg.txt")" -v r=$runs 'BEGIN{printf "%.1f", t / (n * r)}')
  else
    ir="(callgrind failed: $(tail -n1 "$W/cg.err"))"
  fi
fi
{
  echo "## Encoding a full buffer (\`make bench-encode\`)"
  echo
  echo "bench/encode_bench.c: $(val events "$W/native.txt") events of a made-up call tree over 8 functions,"
  echo "the gids, the batch, its CRC, its write() and readying the buffer for reuse, as the writer thread does."
  echo
  echo "| instructions per event (callgrind) | ns per event (best of ${BENCH_ENCODE_RUNS:-200}) | µs per buffer | bytes per event |"
  echo "|---:|---:|---:|---:|"
  echo "| $ir | $(val ns_per_event "$W/native.txt") | $(val us_per_buffer "$W/native.txt") | $(val bytes_per_event "$W/native.txt") |"
} >"$OUT"
