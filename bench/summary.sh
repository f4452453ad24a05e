#!/bin/sh
# summary.sh - the end of `make bench`: joins the machine description and the
# figures every benchmark wrote (OUT_DIR/*.md; OUT_DIR/*.failed for those that
# failed) into OUT_DIR/results.md, prints it, and replaces the figures section
# of DOC (between the "figures:begin" and "figures:end" markers) with it.  A
# NAME=DOC2 argument sends the fragment OUT_DIR/NAME.md to DOC2's figures
# section instead (make bench: the accuracy table to docs/accuracy.md).
#   usage: bench/summary.sh OUT_DIR DOC [NAME=DOC2...]
set -u
[ $# -ge 2 ] || { echo "usage: bench/summary.sh OUT_DIR DOC [NAME=DOC2...]" >&2; exit 2; }
out=$1 doc=$2
shift 2
elsewhere=" "
for a in "$@"; do elsewhere="$elsewhere${a%%=*} "; done
results=$out/results.md
doc_part=$out/results-doc.md
# parts SKIP: every benchmark's fragment but those named in SKIP (" a b "),
# then a line for each benchmark that did not complete.
parts() {
  for f in "$out"/*.md; do
    [ -f "$f" ] && [ "$f" != "$results" ] && [ "$f" != "$doc_part" ] || continue
    case "$1" in *" $(basename "$f" .md) "*) continue ;; esac
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
  parts " "
} >"$results.tmp" && mv "$results.tmp" "$results"
cat "$results"
# fill DOC FILE DEMOTE: DOC's figures section becomes FILE, headings demoted
# by DEMOTE ("##": two levels, to nest under the document's own).
fill() {
  if [ -f "$1" ] && grep -q '^<!-- figures:begin -->$' "$1" && grep -q '^<!-- figures:end -->$' "$1"; then
    awk -v res="$2" -v demote="$3" '
      /^<!-- figures:begin -->$/ {
        print
        while ((getline line < res) > 0) {
          if (line ~ /^```/) code = !code
          if (!code && line ~ /^#/) line = demote line
          print line
        }
        skip = 1; next
      }
      /^<!-- figures:end -->$/ { skip = 0 }
      !skip' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
    echo "bench: figures copied into $1"
  else
    echo "bench: $1 has no figures markers; figures only in $results" >&2
  fi
}
# The results without the fragments sent elsewhere go into DOC.
{
  sed -n '1,/^| load average/p' "$results"
  echo
  parts "$elsewhere"
} >"$doc_part"
fill "$doc" "$doc_part" "##"
for a in "$@"; do
  f=$out/${a%%=*}.md
  if [ -f "$f" ]; then fill "${a#*=}" "$f" ""; else echo "bench: no $f for ${a#*=}" >&2; fi
done
rm -f "$doc_part"
