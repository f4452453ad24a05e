#!/bin/sh
# summary.sh - the end of `make bench`: joins the machine description and the
# figures every benchmark wrote (OUT_DIR/*.md; OUT_DIR/*.failed for those that
# failed) into OUT_DIR/results.md, prints it, and replaces the figures section
# of DOC (between the "figures:begin" and "figures:end" markers) with it.
#   usage: bench/summary.sh OUT_DIR DOC
set -u
[ $# -eq 2 ] || { echo "usage: bench/summary.sh OUT_DIR DOC" >&2; exit 2; }
out=$1 doc=$2
results=$out/results.md
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
  echo "| clang-14 | $(clang-14 --version 2>/dev/null | head -n1 || echo 'not installed') |"
  echo "| uftrace | $(uftrace --version 2>/dev/null | head -n1 || echo 'not installed') |"
  echo "| perf_event_paranoid | $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null) |"
  echo "| load average at the end (1, 5, 15 min) | $(cut -d' ' -f1-3 /proc/loadavg) — other work on the machine inflates every figure alike |"
  echo
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
} >"$results.tmp" && mv "$results.tmp" "$results"
cat "$results"
if [ -f "$doc" ] && grep -q '^<!-- figures:begin -->$' "$doc" && grep -q '^<!-- figures:end -->$' "$doc"; then
  awk -v res="$results" '
    # Headings are demoted two levels to nest under the document'"'"'s own.
    /^<!-- figures:begin -->$/ {
      print
      while ((getline line < res) > 0) {
        if (line ~ /^```/) code = !code
        if (!code && line ~ /^#/) line = "##" line
        print line
      }
      skip = 1; next
    }
    /^<!-- figures:end -->$/ { skip = 0 }
    !skip' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
  echo "bench: figures copied into $doc"
else
  echo "bench: $doc has no figures markers; figures only in $results" >&2
fi
