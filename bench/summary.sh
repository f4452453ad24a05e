#!/bin/sh
# summary.sh - the end of `make bench`: joins the machine description and the
# figures every benchmark wrote (OUT_DIR/*.md; OUT_DIR/*.failed for those that
# failed) into OUT_DIR/results.md and prints it.  A NAME=DOC argument also
# replaces DOC's figures section (between the "figures:begin" and
# "figures:end" markers) with the fragment OUT_DIR/NAME.md (make bench: the
# accuracy table into docs/accuracy.md).  docs/benchmarks.md keeps the
# current figures of each target, chosen by hand from these results.
#   usage: bench/summary.sh OUT_DIR [NAME=DOC...]
set -u
[ $# -ge 1 ] || { echo "usage: bench/summary.sh OUT_DIR [NAME=DOC...]" >&2; exit 2; }
out=$1
shift
results=$out/results.md
# parts: every benchmark's fragment, then a line for each benchmark that did
# not complete.
parts() {
  for f in "$out"/*.md; do
    [ -f "$f" ] && [ "$f" != "$results" ] || continue
    cat "$f"
    echo
  done
  for f in "$out"/*.failed; do
    [ -f "$f" ] || continue
    echo "**$(basename "$f" .failed) did not complete:** $(cat "$f")"
    echo
  done
}
{
  echo "# inclprof benchmark results"
  echo
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`make bench\` at commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo
  echo "| machine | |"
  echo "|---|---|"
  echo "| CPU | $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1), $(nproc) logical CPUs |"
  echo "| virtualisation | $(systemd-detect-virt 2>/dev/null || echo unknown) |"
  echo "| kernel | $(uname -sr) |"
  echo "| OS | $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME") |"
  echo "| gcc | $(gcc -dumpfullversion) |"
  clang=clang-$(sh "$(dirname "$0")/../scripts/llvm-version.sh")
  echo "| $clang | $($clang --version 2>/dev/null | head -n1 || echo 'not installed') |"
  echo "| uftrace | $(uftrace --version 2>/dev/null | head -n1 || echo 'not installed') |"
  echo "| perf_event_paranoid | $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null) |"
  echo "| load average at the end (1, 5, 15 min) | $(cut -d' ' -f1-3 /proc/loadavg) — other work on the machine inflates every figure alike |"
  echo
  parts
} >"$results.tmp" && mv "$results.tmp" "$results"
cat "$results"
# fill DOC FILE: DOC's figures section becomes FILE.
fill() {
  if [ -f "$1" ] && grep -q '^<!-- figures:begin -->$' "$1" && grep -q '^<!-- figures:end -->$' "$1"; then
    awk -v res="$2" '
      /^<!-- figures:begin -->$/ {
        print
        while ((getline line < res) > 0) print line
        skip = 1; next
      }
      /^<!-- figures:end -->$/ { skip = 0 }
      !skip' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
    echo "bench: figures copied into $1"
  else
    echo "bench: $1 has no figures markers; figures only in $results" >&2
  fi
}
for a in "$@"; do
  f=$out/${a%%=*}.md
  if [ -f "$f" ]; then fill "${a#*=}" "$f"; else echo "bench: no $f for ${a#*=}" >&2; fi
done
