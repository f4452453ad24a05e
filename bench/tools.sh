#!/bin/bash
# tools.sh - `make bench-tools`: the cross-tool benchmark.  Builds the
# call-heavy workload (bench/callheavy.c) once per instrumentation method, runs
# every variant BENCH_RUNS times round-robin, and writes medians as Markdown:
# time and ns per hooked call, code-size growth, bytes per event on disk, and
# the overhead on a real program (examples/wordfreq).  A tool that cannot run
# here is reported with the reason, never with a number.
#   usage: bench/tools.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_RUNS (5), BENCH_SLOW_RUNS (3, for uftrace and XRay),
#          BENCH_DEPTH (31), BENCH_LOOPS (3000000)
set -u
[ $# -eq 3 ] || { echo "usage: bench/tools.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$1 W=$2
OUT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 1
SRC=$(cd "$(dirname "$0")/.." && pwd)
# The clang that scripts/deps.sh bench installs on this release (XRay).
CLANG=clang-$(sh "$SRC/scripts/llvm-version.sh")
RUNS=${BENCH_RUNS:-5} SLOW_RUNS=${BENCH_SLOW_RUNS:-3}
DEPTH=${BENCH_DEPTH:-31} LOOPS=${BENCH_LOOPS:-3000000}
INCLPROF=$B/inclprof
rm -rf "$W" && mkdir -p "$W" || exit 1
say() { echo "bench-tools: $*" >&2; }

# --- building -----------------------------------------------------------------
declare -A CMD PRE LABEL UNAVAILABLE RUNS_OF HOOKED
ORDER=()
# try_build NAME COMMAND...: runs a build command; on failure records why.
try_build() {
  local name=$1; shift
  if ! "$@" >"$W/$name.build.log" 2>&1; then
    UNAVAILABLE[$name]="build failed: \`$*\`: $(grep -m1 -i 'error\|not found' "$W/$name.build.log" || tail -n1 "$W/$name.build.log")"
    return 1
  fi
}
# variant NAME LABEL RUNS HOOKED COMMAND: COMMAND is a shell string run in $W;
# HOOKED is how many calls it hooks: "after" (inlining) or "before".
variant() { ORDER+=("$1"); LABEL[$1]=$2; RUNS_OF[$1]=$3; HOOKED[$1]=$4; CMD[$1]=$5; }

CF="-O2 -g"
ARGS="$DEPTH $LOOPS"
cd "$W" || exit 1
gcc $CF -c "$SRC/bench/bare_record.c" -o bare_record.o || exit 1
gcc $CF -c "$SRC/bench/fi_bare_hooks.c" -o fi_bare_hooks.o || exit 1
gcc $CF -c "$SRC/bench/fi_empty_hooks.c" -o fi_empty_hooks.o || exit 1
gcc $CF -I"$SRC/include/inclprof" -c "$SRC/bench/bare_table.c" -o bare_table.o || exit 1
gcc $CF -c "$SRC/bench/callheavy.c" -o callheavy-plain.o && gcc callheavy-plain.o -o plain || exit 1
variant plain "no instrumentation (gcc -O2)" "$RUNS" none "./plain $ARGS"

if try_build ip gcc $CF -fplugin="$B/inclprof.so" -c "$SRC/bench/callheavy.c" -o callheavy-ip.o &&
   try_build ip gcc callheavy-ip.o -o ip; then
  variant ip "inclprof: plugin probes, recording to disk (\`inclprof record\`, transitions auto)" \
    "$RUNS" after "rm -rf ip.data && $INCLPROF record -o ip.data -- ./ip $ARGS"
  variant ip-none "inclprof: the same with \`--transitions none\`" \
    "$RUNS" after "rm -rf ipn.data && $INCLPROF record --transitions none -o ipn.data -- ./ip $ARGS"
  try_build ip-bare gcc callheavy-ip.o bare_table.o bare_record.o -o ip-bare &&
    variant ip-bare "plugin probes -> bare hook (TSC + 16-byte append) via the hook table" \
      "$RUNS" after "./ip-bare $ARGS"
else
  UNAVAILABLE[ip-bare]=${UNAVAILABLE[ip]}
  ORDER+=(ip ip-bare)
fi
gcc $CF -finstrument-functions -c "$SRC/bench/callheavy.c" -o callheavy-fi.o || exit 1
gcc callheavy-fi.o fi_bare_hooks.o bare_record.o -o fi-bare || exit 1
gcc callheavy-fi.o fi_empty_hooks.o -o fi-empty || exit 1
variant fi-bare "-finstrument-functions -> bare hook (TSC + 16-byte append)" "$RUNS" before "./fi-bare $ARGS"
variant fi-empty "-finstrument-functions, empty hooks" "$RUNS" before "./fi-empty $ARGS"

if ! command -v uftrace >/dev/null; then
  ORDER+=(uftrace); UNAVAILABLE[uftrace]="uftrace is not installed (Debian package uftrace; scripts/deps.sh bench installs it)"
elif try_build uftrace gcc $CF -pg -c "$SRC/bench/callheavy.c" -o callheavy-pg.o &&
     try_build uftrace gcc -pg callheavy-pg.o -o pg; then
  variant uftrace "uftrace record (gcc -pg), to disk" "$SLOW_RUNS" after \
    "rm -rf uftrace.data && uftrace record -d uftrace.data ./pg $ARGS"
else
  ORDER+=(uftrace)
fi
if ! command -v "$CLANG" >/dev/null; then
  ORDER+=(xray); UNAVAILABLE[xray]="$CLANG is not installed (scripts/deps.sh bench installs it with LLVM's XRay runtime)"
elif try_build xray "$CLANG" $CF -fxray-instrument -fxray-instruction-threshold=1 -c "$SRC/bench/callheavy.c" -o callheavy-xray.o &&
     try_build xray "$CLANG" -fxray-instrument callheavy-xray.o -o xray &&
     try_build xray "$CLANG" $CF -c "$SRC/bench/callheavy.c" -o callheavy-clang.o &&
     try_build xray "$CLANG" callheavy-clang.o -o clang-plain; then
  variant xray "LLVM XRay, xray-basic mode to disk ($CLANG, threshold 1)" "$SLOW_RUNS" after \
    "rm -f xray-log.* && XRAY_OPTIONS='patch_premain=true xray_mode=xray-basic xray_logfile_base=$W/xray-log.' XRAY_BASIC_OPTIONS='func_duration_threshold_us=0' ./xray $ARGS"
  variant clang-plain "no instrumentation ($CLANG -O2), XRay's baseline" "$RUNS" none "./clang-plain $ARGS"
else
  ORDER+=(xray)
fi

# --- running ------------------------------------------------------------------
declare -A WORK WALL FAILED
max_runs=$RUNS; [ "$SLOW_RUNS" -gt "$max_runs" ] && max_runs=$SLOW_RUNS
for ((r = 1; r <= max_runs; r++)); do
  for v in "${ORDER[@]}"; do
    [ -n "${CMD[$v]:-}" ] && [ -z "${FAILED[$v]:-}" ] && [ "$r" -le "${RUNS_OF[$v]}" ] || continue
    say "run $r/${RUNS_OF[$v]}: $v"
    t0=$EPOCHREALTIME
    sh -c "${CMD[$v]}" >"$v.out" 2>"$v.err"; rc=$?
    t1=$EPOCHREALTIME
    work=$(sed -n 's/^work_ns=\([0-9]*\) .*/\1/p' "$v.out")
    if [ $rc -ne 0 ] || [ -z "$work" ]; then
      FAILED[$v]="exit $rc: $(tail -n1 "$v.err")"
      continue
    fi
    WORK[$v]="${WORK[$v]:-} $work"
    WALL[$v]="${WALL[$v]:-} $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", (b-a)*1e9}')"
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END{if(NR==0)exit 1; print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
calls_after=$(sed -n 's/.* calls=\([0-9]*\) .*/\1/p' plain.out)
inlinable=$(sed -n 's/.*inlinable_calls=\([0-9]*\) .*/\1/p' plain.out)
calls_before=$((calls_after + inlinable))

# --- the Markdown fragment -------------------------------------------------------
{
echo "## Per-call cost on a call-heavy workload"
echo
echo "\`bench/callheavy.c $DEPTH $LOOPS\`: $calls_after non-inlined calls (recursion and a loop of two"
echo "small functions) plus $inlinable calls of two inlinable functions, which only"
echo "\`-finstrument-functions\` hooks. Medians of $RUNS runs ($SLOW_RUNS for uftrace and XRay), run"
echo "round-robin. *work* is the workload alone, timed by the program; *wall* is the"
echo "whole process (start-up, tracer set-up and writing out included). *ns/call* ="
echo "(work − uninstrumented work) ÷ hooked calls."
echo
echo "| method | hooked calls | work ms | wall ms | slowdown (work) | ns/call |"
echo "|---|---:|---:|---:|---:|---:|"
for v in "${ORDER[@]}"; do
  if [ -n "${UNAVAILABLE[$v]:-}" ]; then
    echo "| $v | – | – | – | – | not run: ${UNAVAILABLE[$v]//|/\\|} |"; continue
  fi
  if [ -n "${FAILED[$v]:-}" ]; then
    echo "| ${LABEL[$v]} | – | – | – | – | failed: ${FAILED[$v]//|/\\|} |"; continue
  fi
  base=plain; [ "$v" = xray ] && base=clang-plain
  w=$(echo "${WORK[$v]}" | median); wl=$(echo "${WALL[$v]}" | median); w0=$(echo "${WORK[$base]}" | median)
  case ${HOOKED[$v]} in after) n=$calls_after ;; before) n=$calls_before ;; *) n=0 ;; esac
  awk -v l="${LABEL[$v]}" -v n="$n" -v w="$w" -v wl="$wl" -v w0="$w0" 'BEGIN{
    printf "| %s | %s | %.1f | %.1f | %.2f× | %s |\n", l, n ? n : "–", w/1e6, wl/1e6, w/w0,
      n ? sprintf("%.2f", (w-w0)/n) : "–" }'
  eval "M_$(echo "$v" | tr - _)=\$w"
done
echo
if [ -n "${M_ip:-}" ] && [ -n "${M_ip_bare:-}" ]; then
  awk -v a="$M_ip" -v b="$M_ip_bare" -v z="$M_plain" 'BEGIN{
    printf "inclprof recording vs the bare hook at the same probes: **%.2f×** the per-call cost (target ≤ 1.5×).\n\n", (a-z)/(b-z) }'
fi
if [ -f fi-bare.err ] && [ -f ip-bare.err ]; then
  echo "Hook invocations counted by the bare hooks: plugin probes $(sed -n 's/hook_events=//p' ip-bare.err | tail -n1)," \
       "-finstrument-functions $(sed -n 's/hook_events=//p' fi-bare.err | tail -n1) (2 per call, plus main)."
  echo
fi

echo "## Bytes per event on disk"
echo
echo "| method | trace size | events | bytes/event |"
echo "|---|---:|---:|---:|"
ev_after=$((2 * calls_after))
for pair in "ip:ip.data:inclprof (auto)" "ip-none:ipn.data:inclprof (none)" "uftrace:uftrace.data:uftrace" "xray:xray-log.*:XRay basic"; do
  v=${pair%%:*} rest=${pair#*:}; path=${rest%%:*} label=${rest#*:}
  if [ -z "${WORK[$v]:-}" ]; then echo "| $label | – | – | not measured (${UNAVAILABLE[$v]:-${FAILED[$v]:-not run}}) |"; continue; fi
  # shellcheck disable=SC2086
  bytes=$(du -cb $path 2>/dev/null | tail -n1 | cut -f1)
  awk -v l="$label" -v s="$bytes" -v e="$ev_after" 'BEGIN{printf "| %s | %.1f MB | %d | %.2f |\n", l, s/1e6, e, s/e}'
done
echo
echo "Events = 2 × $calls_after hooked calls (entry and exit) of the last run of each."
echo

echo "## Code size"
echo
echo "Code is every \`.text*\` section; allocated is \`size\`'s text + data + bss (descriptors, names and"
echo "tables included). The benchmark is compared as object files (a linked XRay binary"
echo "carries its whole runtime); wordfreq as linked programs."
echo
echo "| binary | code bytes | growth | allocated bytes | growth |"
echo "|---|---:|---:|---:|---:|"
textsz() { size -A "$1" | awk '$1 ~ /^\.text/ {t += $2} END {print t + 0}'; }
allsz() { size "$1" | awk 'NR==2{print $4}'; }
sizerow() { # LABEL BINARY BASELINE
  [ -f "$2" ] && [ -f "$3" ] || { echo "| $1 | – | – | – | not built |"; return; }
  awk -v l="$1" -v t="$(textsz "$2")" -v t0="$(textsz "$3")" -v a="$(allsz "$2")" -v a0="$(allsz "$3")" \
    'BEGIN{printf "| %s | %d | %+.0f%% | %d | %+.0f%% |\n", l, t, (t/t0-1)*100, a, (a/a0-1)*100}'
}
sizerow "callheavy.o, gcc -O2" callheavy-plain.o callheavy-plain.o
sizerow "callheavy.o, inclprof plugin" callheavy-ip.o callheavy-plain.o
sizerow "callheavy.o, -finstrument-functions" callheavy-fi.o callheavy-plain.o
sizerow "callheavy.o, -pg" callheavy-pg.o callheavy-plain.o
sizerow "callheavy.o, $CLANG XRay (vs $CLANG -O2)" callheavy-xray.o callheavy-clang.o
} >"$OUT.tmp"

# --- a real program: examples/wordfreq -------------------------------------------
# (CFLAGS/LDLIBS go through the environment: the example's Makefile appends to them.)
say "building examples/wordfreq three ways"
{
echo
echo "## A real program: examples/wordfreq"
echo
make -s -B -C "$SRC/examples/wordfreq" O="$W/wf-plain" INCLPROF_PLUGIN= >/dev/null 2>"$W/wf.build.log" &&
make -s -B -C "$SRC/examples/wordfreq" O="$W/wf-ip" INCLPROF_PLUGIN="$B/inclprof.so" >/dev/null 2>>"$W/wf.build.log" &&
CFLAGS="-O2 -g -finstrument-functions" LDLIBS="$W/fi_empty_hooks.o" \
  make -s -B -C "$SRC/examples/wordfreq" O="$W/wf-fi" INCLPROF_PLUGIN= >/dev/null 2>>"$W/wf.build.log"
if [ $? -ne 0 ]; then
  echo "not measured: building wordfreq failed: $(head -n1 "$W/wf.build.log")"
else
  mkdir -p wf-files
  declare -A WF_CMD=(
    [plain]="./wf-plain/wordfreq -d wf-files"
    [inclprof]="rm -rf wf.data && $INCLPROF record -o wf.data -- ./wf-ip/wordfreq -d wf-files"
    [inclprof-none]="rm -rf wf.data && $INCLPROF record --transitions none -o wf.data -- ./wf-ip/wordfreq -d wf-files"
    [fi-empty]="./wf-fi/wordfreq -d wf-files")
  declare -A WF_T WF_F
  for ((r = 1; r <= RUNS; r++)); do
    for v in plain inclprof inclprof-none fi-empty; do
      [ -z "${WF_F[$v]:-}" ] || continue
      say "run $r/$RUNS: wordfreq $v"
      t0=$EPOCHREALTIME
      sh -c "${WF_CMD[$v]}" >"wf-$v.out" 2>"wf-$v.err" || WF_F[$v]="exit $?: $(tail -n1 "wf-$v.err")"
      t1=$EPOCHREALTIME
      WF_T[$v]="${WF_T[$v]:-} $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", (b-a)*1e9}')"
    done
  done
  echo "\`wordfreq\` with 4 worker threads over $(sed -n 's/wordfreq: \([0-9]*\) words.*/\1/p' wf-plain.out) words (median wall time of $RUNS runs):"
  echo
  echo "| build and run | wall ms | overhead |"
  echo "|---|---:|---:|"
  t0=$(echo "${WF_T[plain]}" | median)
  for v in plain inclprof inclprof-none fi-empty; do
    if [ -n "${WF_F[$v]:-}" ]; then echo "| $v | – | failed: ${WF_F[$v]} |"; continue; fi
    awk -v l="$v" -v t="$(echo "${WF_T[$v]}" | median)" -v t0="$t0" 'BEGIN{printf "| %s | %.1f | %+.0f%% |\n", l, t/1e6, (t/t0-1)*100}'
  done
  echo
  echo "(plain: no probes; inclprof: plugin + \`inclprof record\`; inclprof-none: with \`--transitions none\`;"
  echo "fi-empty: \`-finstrument-functions\` with empty hooks.)"
  echo
  echo "| wordfreq binary | code bytes | growth | allocated bytes | growth |"
  echo "|---|---:|---:|---:|---:|"
  sizerow "inclprof plugin" wf-ip/wordfreq wf-plain/wordfreq
  sizerow "-finstrument-functions" wf-fi/wordfreq wf-plain/wordfreq
fi
if [ -d ip.data ]; then
  echo
  echo "Transition mode of the recorded runs (\`inclprof info\`):"
  echo
  echo '```'
  "$INCLPROF" info ip.data 2>&1 | grep -i -m3 'transition\|calibrat\|probe cost'
  echo '```'
fi
} >>"$OUT.tmp"
mv "$OUT.tmp" "$OUT" || exit 1
say "figures in $OUT"
