#!/bin/bash
# programs.sh - `make bench-programs`: real programs side by side with the
# rivals.  Debian's sources of lua, sqlite, zstd and jq, fetched and built
# as `make field` builds them (tests/field/field.sh, sourced for its
# definitions), run on field.sh's workloads: plain; under `inclprof record`
# (the plugin's defaults, then rebuilt with the filter `inclprof suggest`
# writes from that run); under `uftrace record` (a -pg and a
# -finstrument-functions build); under LLVM XRay (FDR mode, every call kept:
# bench/xray_fdr_init.cc linked in).  Every variant runs BENCH_RUNS times,
# round-robin; the table gives median wall times, their spread, the slowdown,
# events per second and bytes per event.  A tool that cannot build or run a
# program is shown with the reason, never a number.
#   usage: bench/programs.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_RUNS (5), BENCH_PROGRAMS ("lua sqlite zstd jq")
set -u
[ $# -eq 3 ] || { echo "usage: bench/programs.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$1 BW=$2
OUT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 1
INCLPROF_SRC=$(cd "$(dirname "$0")/.." && pwd)
INCLPROF=$B/inclprof INCLPROF_PLUGIN=$B/inclprof.so
RUNS=${BENCH_RUNS:-5}
mkdir -p "$BW" || exit 1
say() { echo "bench-programs: $*" >&2; }
# field.sh's helpers, for its definitions only
fail() { say "$*"; }
INCLPROF_FIELD_DIR=$BW/src FIELD_DEFINITIONS_ONLY=1 # field.sh sets W to it
export INCLPROF_SRC INCLPROF_PLUGIN
set -- # field.sh reads its programs from the arguments
# shellcheck source=../tests/field/field.sh
. "$INCLPROF_SRC/tests/field/field.sh"
read -r -a PROGS <<<"${BENCH_PROGRAMS:-lua sqlite zstd jq}"
CLANGXX=clang++-$(sh "$INCLPROF_SRC/scripts/llvm-version.sh")
"$CLANGXX" -O2 -c "$INCLPROF_SRC/bench/xray_fdr_init.cc" -o "$BW/xray_fdr_init.o" 2>"$BW/xray_fdr_init.log"
FIELD_XRAY_LINK=$BW/xray_fdr_init.o

# The tools, each run as "TOOL BIN ARGS" by field.sh's run_PROGRAM; every
# process's output goes to a directory of its own under $OUTD.
OUTD=
fresh() { mktemp -d -p "$OUTD"; }
tool_plain() { "$@"; }
tool_inclprof() { "$INCLPROF" record -o "$(fresh)/t" -- "$@"; }
tool_uftrace() { uftrace record -d "$(fresh)/t" "$@"; }
tool_xray() { XRAY_OPTIONS="xray_logfile_base=$(fresh)/x." "$@"; }

# variant NAME FLAVOUR TOOL LABEL
VARIANTS=(plain:plain:tool_plain inclprof:plugin:tool_inclprof filtered:filtered:tool_inclprof
  uftrace-pg:pg:tool_uftrace uftrace-fi:fi:tool_uftrace xray:xray:tool_xray)
declare -A LABEL=([plain]="plain (gcc -O2)" [inclprof]="inclprof record (the defaults)"
  [filtered]="inclprof record, rebuilt with \`inclprof suggest\`'s filter"
  [uftrace-pg]="uftrace record, gcc -pg" [uftrace-fi]="uftrace record, gcc -finstrument-functions"
  [xray]="LLVM XRay, FDR mode, every call kept (clang -O2 -fxray-instrument)")
declare -A BINOF WHY T BYTES EVENTS

# build PROGRAM FLAVOUR: the binary in BINOF, or the reason in WHY
build() {
  local p=$1 fl=$2 k=$1/$2
  BIN=
  if [ "$fl" = xray ] && [ ! -f "$FIELD_XRAY_LINK" ]; then
    WHY[$k]="the XRay FDR start-up object did not build: $(head -n1 "$BW/xray_fdr_init.log")"
    return
  fi
  if [ "$fl" = filtered ]; then
    if [ -z "${BINOF[$p/plugin]:-}" ]; then WHY[$k]="the plugin build failed"; return; fi
    say "$p: a profiled run for inclprof suggest"
    rm -rf "$BW/$p.profile" && mkdir -p "$BW/$p.run" && OUTD=$BW/$p.profile && mkdir -p "$OUTD" &&
      (cd "$BW/$p.run" && "run_$p" tool_inclprof "${BINOF[$p/plugin]}" >/dev/null 2>&1)
    FIELD_FILTER=$BW/$p.filter
    # shellcheck disable=SC2046
    if ! "$INCLPROF" suggest $(find "$BW/$p.profile" -name '*.ipb') -o "$FIELD_FILTER" >"$BW/$p.suggest" 2>&1; then
      WHY[$k]="inclprof suggest failed: $(tail -n1 "$BW/$p.suggest")"
      return
    fi
  fi
  say "$p: building $fl"
  "build_$p" "$fl" "$BW/build/$p-$fl"
  if [ -n "$BIN" ] && [ -x "$BIN" ]; then
    BINOF[$k]=$BIN
  else
    WHY[$k]="the build failed: $(grep -m1 -i 'error' "$BW/build/$p-$fl/build.log" 2>/dev/null ||
      tail -n1 "$BW/build/$p-$fl/build.log" 2>/dev/null)"
  fi
}

# events FILES...: the events of inclprof traces
events() { for f in "$@"; do "$INCLPROF" info "$f" 2>/dev/null | sed -n 's/^events: *\([0-9]*\).*/\1/p'; done | awk '{s += $1} END {print s + 0}'; }

for p in "${PROGS[@]}"; do
  fetch "$(pkg_of "$p")" || { for v in "${VARIANTS[@]}"; do WHY[$p/${v%%:*}]="apt-get source $(pkg_of "$p") failed"; done; continue; }
  [ "$p" = zstd ] && { fetch sqlite3 && fetch redis || WHY[$p/input]="the input (sqlite's and redis's sources) could not be fetched"; }
  for v in "${VARIANTS[@]}"; do
    IFS=: read -r name fl _ <<<"$v"
    build "$p" "$fl"
    [ -n "${BINOF[$p/$fl]:-}" ] && BINOF[$p/$name]=${BINOF[$p/$fl]}
    [ -n "${WHY[$p/$fl]:-}" ] && WHY[$p/$name]=${WHY[$p/$fl]}
  done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END{if(NR==0)exit 1; print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
for ((r = 1; r <= RUNS; r++)); do
  for p in "${PROGS[@]}"; do
    for v in "${VARIANTS[@]}"; do
      IFS=: read -r name fl tool <<<"$v"
      k=$p/$name
      [ -n "${BINOF[$k]:-}" ] && [ -z "${WHY[$k]:-}" ] || continue
      say "run $r/$RUNS: $p $name"
      OUTD=$BW/out/$p-$name && rm -rf "$OUTD" && mkdir -p "$OUTD" "$BW/run/$p-$name"
      t0=$EPOCHREALTIME
      (cd "$BW/run/$p-$name" && "run_$p" "$tool" "${BINOF[$k]}") >"$BW/run/$p-$name.out" 2>&1; rc=$?
      t1=$EPOCHREALTIME
      if [ $rc -ne 0 ]; then WHY[$k]="exit $rc: $(tail -n1 "$BW/run/$p-$name.out")"; continue; fi
      T[$k]="${T[$k]:-} $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", (b-a)*1e9}')"
      BYTES[$k]=$(du -cb "$OUTD" | tail -n1 | cut -f1)
      # shellcheck disable=SC2046
      case $name in inclprof | filtered) EVENTS[$k]=$(events $(find "$OUTD" -name '*.ipb')) ;; esac
    done
  done
done

{
echo "## Real programs side by side (\`make bench-programs\`)"
echo
echo "\`bench/programs.sh\`: Debian's sources built as \`make field\` builds them, on its workloads (lua: \`tests/field/work.lua\`;"
echo "sqlite: \`tests/field/work.sql\`; zstd: level 6 compression and decompression of 16 MB of source code, one thread;"
echo "jq: its \`onig.test\` suite). Median wall time of $RUNS interleaved runs (*range*: the fastest and slowest);"
echo "*slowdown* against the plain gcc build (XRay's build is clang's)."
echo "*events*: entry and exit events inclprof records on the plugin build (-pg and XRay hook the same calls, after"
echo "inlining; -finstrument-functions also the inlined ones); *events/s* = those events ÷ the median wall time;"
echo "*bytes/event* = what the tool wrote ÷ those events. XRay runs in FDR mode (\`bench/xray_fdr_init.cc\`:"
echo "every call kept, 1 GiB of buffers, the log written at exit)."
echo
echo "| program | method | wall s | range s | slowdown | events | events/s | bytes/event |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for p in "${PROGS[@]}"; do
  t0=$(echo "${T[$p/plain]:-}" | median) || t0=
  ev=${EVENTS[$p/inclprof]:-}
  for v in "${VARIANTS[@]}"; do
    name=${v%%:*} k=$p/${v%%:*}
    if [ -n "${WHY[$k]:-}" ] || [ -z "${T[$k]:-}" ]; then
      echo "| $p | ${LABEL[$name]} | not run: ${WHY[$k]:-not measured} | | | | | |"
      continue
    fi
    e=$ev; [ "$name" = filtered ] && e=${EVENTS[$k]:-}
    awk -v p="$p" -v l="${LABEL[$name]}" -v t="$(echo "${T[$k]}" | median)" -v t0="$t0" -v e="$e" -v b="${BYTES[$k]}" \
      -v lo="$(echo "${T[$k]}" | tr ' ' '\n' | grep . | sort -n | head -n1)" \
      -v hi="$(echo "${T[$k]}" | tr ' ' '\n' | grep . | sort -n | tail -n1)" -v plain="$([ "$name" = plain ] && echo 1)" 'BEGIN{
      printf "| %s | %s | %.2f | %.2f–%.2f | %s | %s | %s | %s |\n", p, l, t/1e9, lo/1e9, hi/1e9,
        (t0 > 0 ? sprintf("%.1f×", t/t0) : "–"), (plain || e == "" ? "–" : sprintf("%.1f M", e/1e6)),
        (plain || e == "" ? "–" : sprintf("%.1f M", e/(t/1e9)/1e6)), (plain || e == "" || e == 0 ? "–" : sprintf("%.2f", b/e)) }'
  done
done
echo
} >"$OUT.tmp" && mv "$OUT.tmp" "$OUT"
cat "$OUT"
