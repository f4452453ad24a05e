#!/bin/bash
# fork.sh - `make bench-fork`: how soon a fork child of a recorded program
# runs.  bench/fork_bench.c, built plain and with the plugin, forks
# BENCH_FORK_N times a run: each child reads CLOCK_MONOTONIC first thing and
# sends it up a pipe, the parent reads it just before fork; then as many
# forks that exec /bin/true (the spawn a shell does), timed from before fork
# to waitpid's return.  Variants: plain, the plugin build without the
# runtime (not recording), and recorded (`inclprof record`, kevents, the
# defaults); with BENCH_FORK_BEFORE=OTHER_BUILD_DIR, recorded by that
# build's plugin and runtime too, in the same rounds.  BENCH_FORK_ROUNDS
# interleaved rounds, each running every variant once; medians of all the
# forks, in brackets the range of the rounds' medians; the load average
# before and after.  Writes Markdown to OUT_MD.
#   usage: bench/fork.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_FORK_N (200), BENCH_FORK_ROUNDS (5), BENCH_FORK_BEFORE
set -u
[ $# -eq 3 ] || { echo "usage: bench/fork.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$1 W=$2
mkdir -p "$(dirname "$3")" || exit 1
OUT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 1
SRC=$(cd "$(dirname "$0")/.." && pwd)
N=${BENCH_FORK_N:-200} ROUNDS=${BENCH_FORK_ROUNDS:-5} BEFORE=${BENCH_FORK_BEFORE:-}
[ -z "$BEFORE" ] || BEFORE=$(cd "$BEFORE" && pwd) || exit 1
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
say() { echo "bench-fork: $*" >&2; }

gcc -O2 "$SRC/bench/fork_bench.c" -o plain &&
  gcc -O2 -fplugin="$B/inclprof.so" "$SRC/bench/fork_bench.c" -o traced || exit 1
declare -A CMD=([plain]="./plain" [idle]="./traced"
  [rec]="$B/inclprof record -o rec --transitions kevents -- ./traced")
declare -A NAME=([plain]="plain" [idle]="plugin build, not recording" [rec]="recorded")
VARIANTS="plain idle rec"
if [ -n "$BEFORE" ]; then
  gcc -O2 -fplugin="$BEFORE/inclprof.so" "$SRC/bench/fork_bench.c" -o traced_before || exit 1
  CMD[before]="$BEFORE/inclprof record -o rec_before --transitions kevents -- ./traced_before"
  NAME[before]="recorded by $BEFORE"
  NAME[rec]="recorded by $B"
  VARIANTS="plain idle before rec"
fi

"$B/inclprof" record -o probe --transitions kevents -- ./traced line 1 >/dev/null 2>&1
if ! "$B/inclprof" info probe 2>/dev/null | grep -q 'transitions: *kevents'; then
  say "kevents unavailable here: recorded without the kernel's events"
  kev_note="kevents unavailable: recorded without the kernel's events"
  for v in rec before; do [ -n "${CMD[$v]:-}" ] && CMD[$v]=${CMD[$v]/--transitions kevents/--transitions none}; done
else
  kev_note="kevents"
fi

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
say "$ROUNDS rounds of $N forks a variant, load $load_before"
for ((r = 1; r <= ROUNDS; r++)); do
  for v in $VARIANTS; do
    rm -rf rec rec_before
    eval "${CMD[$v]} line $N" >"line.$v.$r" 2>/dev/null
    rm -rf rec rec_before
    eval "${CMD[$v]} exec $N" >"exec.$v.$r" 2>/dev/null
  done
done
rm -rf rec rec_before probe
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# median COLUMN FILE...: the median of a column, in µs.
median() {
  local c=$1
  shift
  cat "$@" | awk -v c="$c" '{ print $c / 1000 }' | sort -n |
    awk '{ v[NR] = $1 } END { if (NR) printf "%.0f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else printf "-" }'
}
# figure KIND VARIANT COLUMN: the median of every fork (the range of the rounds' medians).
figure() {
  local r lo="" hi="" m
  for ((r = 1; r <= ROUNDS; r++)); do
    m=$(median "$3" "$1.$2.$r")
    [ "$m" = - ] && continue
    if [ -z "$lo" ] || [ "$m" -lt "$lo" ]; then lo=$m; fi
    if [ -z "$hi" ] || [ "$m" -gt "$hi" ]; then hi=$m; fi
  done
  printf "%s µs (%s-%s)" "$(median "$3" "$1.$2".*)" "${lo:--}" "${hi:--}"
}

{
  echo "## A fork child's start (make bench-fork)"
  echo
  echo "bench/fork_bench.c forking $N times a run, $ROUNDS interleaved rounds" \
    "($kev_note); medians of $((N * ROUNDS)) forks, in brackets the range of the" \
    "rounds' medians; load average $load_before before, $load_after after."
  echo
  echo "| variant | fork to the child's first line | fork returning in the parent | fork, exec /bin/true, waitpid |"
  echo "|---|---:|---:|---:|"
  for v in $VARIANTS; do
    echo "| ${NAME[$v]} | $(figure line "$v" 1) | $(figure line "$v" 2) | $(figure exec "$v" 1) |"
  done
} >"$OUT"
cat "$OUT"
