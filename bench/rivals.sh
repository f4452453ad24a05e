#!/bin/bash
# rivals.sh - `make bench-rivals`: inclprof against the floor and the
# strongest other tracers, in one interleaved run, on the recursive, tree and
# multi-threaded workloads of bench/callheavy.c.  Every variant runs
# BENCH_RUNS times per workload, round-robin; the Markdown table gives medians
# of in-process ns per hooked call and the ratio of each to inclprof (kevents)
# and to the floor (-finstrument-functions -> rdtsc + 16-byte TLS append).  A
# second table gives start-up (`inclprof record` of a trivial program, and
# each tool's wall time outside the workload) and the time from the end of
# the workload to the end of the process (the exit-time flush).  A tool that
# cannot run here is reported with the reason, never with a number.
#   usage: bench/rivals.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_RUNS (5), BENCH_SLOW_RUNS (3: XRay basic, uftrace)
set -u
[ $# -eq 3 ] || { echo "usage: bench/rivals.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$1 W=$2
OUT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 1
SRC=$(cd "$(dirname "$0")/.." && pwd)
# The clang that scripts/deps.sh bench installs on this release (XRay).
CLANG=clang-$(sh "$SRC/scripts/llvm-version.sh")
RUNS=${BENCH_RUNS:-5} SLOW_RUNS=${BENCH_SLOW_RUNS:-3}
INCLPROF=$B/inclprof
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
say() { echo "bench-rivals: $*" >&2; }

# workload NAME ARGS: the three workloads (about 7 M, 4.5 M and 16 M calls)
WORKLOADS=(rec tree threads)
declare -A WARGS=([rec]="32 0 rec" [tree]="16 23 tree" [threads]="28 1500000 threads")

declare -A CMD LABEL UNAVAILABLE RUNS_OF HOOKED BASE
ORDER=()
try_build() {
  local name=$1; shift
  if ! "$@" >"$W/$name.build.log" 2>&1; then
    UNAVAILABLE[$name]="build failed: \`$*\`: $(grep -m1 -i 'error\|not found' "$W/$name.build.log" || tail -n1 "$W/$name.build.log")"
    return 1
  fi
}
# variant NAME LABEL RUNS HOOKED BASELINE COMMAND (COMMAND gets the workload's
# arguments appended; HOOKED: "after" inlining or "before")
variant() { ORDER+=("$1"); LABEL[$1]=$2; RUNS_OF[$1]=$3; HOOKED[$1]=$4; BASE[$1]=$5; CMD[$1]=$6; }
missing() { ORDER+=("$1"); LABEL[$1]=$2; UNAVAILABLE[$1]=$3; }

CF="-O2 -g"
gcc $CF -c "$SRC/bench/bare_record.c" -o bare_record.o &&
gcc $CF -c "$SRC/bench/fi_bare_hooks.c" -o fi_bare_hooks.o &&
gcc $CF -I"$SRC/include/inclprof" -c "$SRC/bench/bare_table.c" -o bare_table.o &&
gcc $CF -c "$SRC/bench/callheavy.c" -o plain.o && gcc plain.o -o plain -lpthread &&
gcc $CF -finstrument-functions -c "$SRC/bench/callheavy.c" -o fi.o &&
gcc fi.o fi_bare_hooks.o bare_record.o -o fi-bare -lpthread &&
gcc fi.o -o fi-uf -lpthread || exit 1
variant plain "no instrumentation (gcc -O2)" "$RUNS" none plain "./plain"
variant floor "the floor: -finstrument-functions -> rdtsc + 16-byte TLS append" "$RUNS" before plain "./fi-bare"
if try_build ip gcc $CF -fplugin="$B/inclprof.so" -c "$SRC/bench/callheavy.c" -o ip.o &&
   try_build ip gcc ip.o -o ip -lpthread &&
   try_build ip gcc ip.o bare_table.o bare_record.o -o ip-bare -lpthread; then
  variant ip-bare "plugin probes -> the same bare hook through the hook table" "$RUNS" after plain "./ip-bare"
  variant ip "inclprof record, kevents, writer auto (the defaults)" "$RUNS" after plain \
    "rm -rf ip.data && $INCLPROF record --transitions kevents -o ip.data -- ./ip"
  variant ip-thread "inclprof record, kevents, INCLPROF_WRITER=thread" "$RUNS" after plain \
    "rm -rf ipt.data && INCLPROF_WRITER=thread $INCLPROF record --transitions kevents -o ipt.data -- ./ip"
  variant ip-inline "inclprof record, kevents, INCLPROF_WRITER=inline" "$RUNS" after plain \
    "rm -rf ipi.data && INCLPROF_WRITER=inline $INCLPROF record --transitions kevents -o ipi.data -- ./ip"
  variant ip-none "inclprof record, --transitions none, writer auto" "$RUNS" after plain \
    "rm -rf ipn.data && $INCLPROF record --transitions none -o ipn.data -- ./ip"
else
  missing ip "inclprof" "${UNAVAILABLE[ip]}"
fi
if ! command -v clang++-14 >/dev/null; then
  missing xray-fdr "XRay FDR" "$CLANG is not installed (scripts/deps.sh bench installs it with LLVM's XRay runtime)"
elif try_build xray "$CLANG" $CF -fxray-instrument -fxray-instruction-threshold=1 -c "$SRC/bench/callheavy.c" -o xray.o &&
     try_build xray clang++-14 -O2 -c "$SRC/bench/xray_fdr_init.cc" -o xray_fdr_init.o &&
     try_build xray clang++-14 -fxray-instrument xray.o xray_fdr_init.o -o xray-fdr -lpthread &&
     try_build xray clang++-14 -fxray-instrument xray.o -o xray-basic -lpthread &&
     try_build xray "$CLANG" $CF -c "$SRC/bench/callheavy.c" -o clang-plain.o &&
     try_build xray "$CLANG" clang-plain.o -o clang-plain -lpthread; then
  variant clang-plain "no instrumentation ($CLANG -O2), XRay's baseline" "$RUNS" none clang-plain "./clang-plain"
  variant xray-fdr "XRay FDR mode, every call kept (func_duration_threshold_us=0, 1 GiB of buffers, flushed at exit)" \
    "$RUNS" after clang-plain "rm -f xr-fdr.* && XRAY_OPTIONS='xray_logfile_base=$W/xr-fdr.' ./xray-fdr"
  variant xray-basic "XRay basic mode, every call kept (func_duration_threshold_us=0)" "$SLOW_RUNS" after clang-plain \
    "rm -f xr-basic.* && XRAY_OPTIONS='patch_premain=true xray_mode=xray-basic xray_logfile_base=$W/xr-basic.' XRAY_BASIC_OPTIONS='func_duration_threshold_us=0' ./xray-basic"
else
  missing xray-fdr "XRay" "${UNAVAILABLE[xray]}"
fi
if ! command -v uftrace >/dev/null; then
  missing uftrace "uftrace" "uftrace is not installed (Debian package uftrace; scripts/deps.sh bench installs it)"
elif try_build pg gcc $CF -pg -c "$SRC/bench/callheavy.c" -o pg.o && try_build pg gcc -pg pg.o -o pg -lpthread; then
  variant uftrace-pg "uftrace record, gcc -pg" "$SLOW_RUNS" after plain "rm -rf uf-pg.data && uftrace record -d uf-pg.data ./pg"
  variant uftrace-fi "uftrace record, gcc -finstrument-functions" "$SLOW_RUNS" before plain "rm -rf uf-fi.data && uftrace record -d uf-fi.data ./fi-uf"
  variant gprof "gprof: gcc -pg, gmon.out written at exit" "$RUNS" after plain "rm -f gmon.out && ./pg"
else
  missing uftrace "uftrace, gprof" "${UNAVAILABLE[pg]}"
fi

# --- running: every workload, every variant, round-robin ----------------------
declare -A WORK EXIT START FAILED CALLS INL
for ((r = 1; r <= (RUNS > SLOW_RUNS ? RUNS : SLOW_RUNS); r++)); do
  for wl in "${WORKLOADS[@]}"; do
    for v in "${ORDER[@]}"; do
      k=$v/$wl
      [ -n "${CMD[$v]:-}" ] && [ -z "${FAILED[$k]:-}" ] && [ "$r" -le "${RUNS_OF[$v]}" ] || continue
      say "run $r/${RUNS_OF[$v]}: $v $wl"
      t0=$EPOCHREALTIME
      sh -c "${CMD[$v]} ${WARGS[$wl]}" >"$v.out" 2>"$v.err"; rc=$?
      t1=$EPOCHREALTIME
      work=$(sed -n 's/^work_ns=\([0-9]*\) .*/\1/p' "$v.out")
      end=$(sed -n 's/.* end_unix_ns=\([0-9]*\)$/\1/p' "$v.out")
      if [ $rc -ne 0 ] || [ -z "$work" ] || [ -z "$end" ]; then
        FAILED[$k]="exit $rc: $(tail -n1 "$v.err")"
        continue
      fi
      CALLS[$wl]=$(sed -n 's/.* calls=\([0-9]*\) .*/\1/p' "$v.out")
      INL[$wl]=$(sed -n 's/.*inlinable_calls=\([0-9]*\) .*/\1/p' "$v.out")
      WORK[$k]="${WORK[$k]:-} $work"
      ex=$(awk -v e="$end" -v b="$t1" 'BEGIN{printf "%.0f", b*1e9-e}')
      EXIT[$k]="${EXIT[$k]:-} $ex"
      START[$k]="${START[$k]:-} $(awk -v a="$t0" -v b="$t1" -v w="$work" -v x="$ex" 'BEGIN{printf "%.0f", (b-a)*1e9-w-x}')"
    done
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END{if(NR==0)exit 1; print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
# ns per hooked call of variant $1 on workload $2 (empty when not measured)
declare -A NS
for wl in "${WORKLOADS[@]}"; do
  for v in "${ORDER[@]}"; do
    k=$v/$wl
    [ -n "${WORK[$k]:-}" ] && [ "${HOOKED[$v]}" != none ] || continue
    w=$(echo "${WORK[$k]}" | median); w0=$(echo "${WORK[${BASE[$v]}/$wl]:-}" | median) || continue
    n=${CALLS[$wl]}; [ "${HOOKED[$v]}" = before ] && n=$((n + ${INL[$wl]}))
    NS[$k]=$(awk -v w="$w" -v w0="$w0" -v n="$n" 'BEGIN{printf "%.2f", (w-w0)/n}')
  done
done

{
echo "## inclprof against the floor and the strongest rivals"
echo
echo "\`bench/rivals.sh\` (\`make bench-rivals\`): $(for wl in "${WORKLOADS[@]}"; do printf '%s (`callheavy %s`, %s calls), ' "$wl" "${WARGS[$wl]}" "${CALLS[$wl]:-?}"; done | sed 's/, $//')."
echo "In-process ns per hooked call (entry + exit) = (work − uninstrumented work) ÷ hooked calls,"
echo "medians of $RUNS runs ($SLOW_RUNS for XRay basic and uftrace), all variants interleaved."
echo "*× ip*: ratio to inclprof (kevents, the defaults); *× floor*: ratio to the bare hook through -finstrument-functions."
echo
printf '| method |'; for wl in "${WORKLOADS[@]}"; do printf ' %s ns/call | × ip | × floor |' "$wl"; done; echo
printf '|---|'; for wl in "${WORKLOADS[@]}"; do printf -- '---:|---:|---:|'; done; echo
for v in "${ORDER[@]}"; do
  [ "${HOOKED[$v]:-}" = none ] && continue
  if [ -n "${UNAVAILABLE[$v]:-}" ]; then echo "| ${LABEL[$v]} | not run: ${UNAVAILABLE[$v]//|/\\|} |"; continue; fi
  printf '| %s |' "${LABEL[$v]}"
  for wl in "${WORKLOADS[@]}"; do
    x=${NS[$v/$wl]:-}
    if [ -z "$x" ]; then printf ' failed: %s | – | – |' "${FAILED[$v/$wl]:-not measured}" | tr -d '\n'; continue; fi
    awk -v x="$x" -v ip="${NS[ip/$wl]:-}" -v fl="${NS[floor/$wl]:-}" 'BEGIN{
      printf " %.1f | %s | %s |", x, (ip > 0 ? sprintf("%.2f×", x/ip) : "–"), (fl > 0 ? sprintf("%.2f×", x/fl) : "–") }'
  done
  echo
done
echo
if [ -n "${NS[ip/rec]:-}" ] && [ -n "${NS[ip-bare/rec]:-}" ] && [ -n "${NS[floor/rec]:-}" ]; then
  echo "Where inclprof's cost over the floor goes (ns per call): the hook call (on x86-64 the stub and trampoline) = ip-bare − floor; the rest"
  echo "(transition counter, slot reservation, hand-off or encoding) = inclprof − ip-bare."
  echo
  echo "| workload | floor | hook call | the rest | inclprof |"
  echo "|---|---:|---:|---:|---:|"
  for wl in "${WORKLOADS[@]}"; do
    awk -v wl="$wl" -v f="${NS[floor/$wl]:-0}" -v b="${NS[ip-bare/$wl]:-0}" -v i="${NS[ip/$wl]:-0}" \
      'BEGIN{printf "| %s | %.1f | %+.1f | %+.1f | %.1f |\n", wl, f, b-f, i-b, i}'
  done
  echo
fi

echo "## Start-up and exit"
echo
echo "*start-up*: wall time of the whole process minus the workload and the exit (per run); *exit*: from the end of"
echo "the workload (the program's own clock) to the end of the process, which includes writing out"
echo "what is still buffered (inclprof: the last buffers and the Trailer; XRay FDR: its whole trace;"
echo "gprof: gmon.out). Medians, \`threads\` workload."
echo
echo "| method | start-up ms | exit ms | trace size |"
echo "|---|---:|---:|---:|"
for v in "${ORDER[@]}"; do
  k=$v/threads
  [ -n "${WORK[$k]:-}" ] || continue
  case $v in ip) d=ip.data ;; ip-thread) d=ipt.data ;; ip-inline) d=ipi.data ;; ip-none) d=ipn.data ;; xray-fdr) d="xr-fdr.*" ;;
    xray-basic) d="xr-basic.*" ;; uftrace-pg) d=uf-pg.data ;; uftrace-fi) d=uf-fi.data ;; gprof) d=gmon.out ;; *) d= ;; esac
  # shellcheck disable=SC2086
  size=$([ -n "$d" ] && du -cb $d 2>/dev/null | tail -n1 | cut -f1)
  awk -v l="${LABEL[$v]}" -v st="$(echo "${START[$k]}" | median)" -v e="$(echo "${EXIT[$k]}" | median)" \
      -v s="${size:-}" 'BEGIN{
    printf "| %s | %.1f | %.1f | %s |\n", l, st/1e6, e/1e6,
      (s == "" ? "–" : s < 1e6 ? sprintf("%.1f KB", s/1e3) : sprintf("%.1f MB", s/1e6)) }'
done
echo
} >"$OUT.tmp"

# --- inclprof record on a trivial program (one call) -----------------------------
if [ -x ip ]; then
  declare -a TRIV BARE
  for ((r = 1; r <= 2 * RUNS + 1; r++)); do
    t0=$EPOCHREALTIME; ./ip 1 0 rec >/dev/null; t1=$EPOCHREALTIME
    rm -rf triv.data; "$INCLPROF" record -o triv.data -- ./ip 1 0 rec >/dev/null 2>&1; t2=$EPOCHREALTIME
    BARE+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", (b-a)*1e9}')")
    TRIV+=("$(awk -v a="$t1" -v b="$t2" 'BEGIN{printf "%.0f", (b-a)*1e9}')")
  done
  awk -v t="$(echo "${TRIV[*]}" | median)" -v b="$(echo "${BARE[*]}" | median)" -v n="$((2 * RUNS + 1))" 'BEGIN{
    printf "`inclprof record` of a trivial instrumented program (`callheavy 1 0 rec`, one call): **%.1f ms** wall, against %.1f ms for the program alone (median of %d).\n\n", t/1e6, b/1e6, n }' >>"$OUT.tmp"
fi
mv "$OUT.tmp" "$OUT"
cat "$OUT"
