#!/bin/bash
# rivals.sh - `make bench-rivals`: inclprof against the floor and the
# strongest other tracers, in one interleaved run, on the recursive, tree and
# multi-threaded workloads of bench/callheavy.c.  Every variant runs
# BENCH_RUNS times per workload, round-robin; the Markdown table gives medians
# of in-process ns per hooked call, their spread (lowest–highest run), the
# ratio of each to inclprof (kevents, the defaults) and to the floor of the
# same clock read (-finstrument-functions -> rdtsc + 16-byte TLS append; with
# `lfence; rdtsc` for the fenced clock, inclprof's default, and for the
# rivals, whose clocks are ordered reads too).  A second table gives start-up
# (`inclprof record` of a trivial program, and each tool's wall time outside
# the workload) and the time from the end of the workload to the end of the
# process (the exit-time flush).  A tool that cannot run here is reported
# with the reason, never with a number.
#   usage: bench/rivals.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_RUNS (5), BENCH_SLOW_RUNS (3: XRay basic, uftrace),
#          BENCH_WORKLOADS ("rec tree threads"), BENCH_VARIANTS (all; names as
#          in the variant lines below, plain and the floors always run)
set -u
[ $# -eq 3 ] || { echo "usage: bench/rivals.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$(cd "$1" && pwd) || { echo "bench-rivals: no build directory $1: run make first" >&2; exit 2; }
mkdir -p "$2" && W=$(cd "$2" && pwd) || exit 1
mkdir -p "$(dirname "$3")" || exit 1
OUT_DIR=$(cd "$(dirname "$3")" && pwd) || exit 1
OUT=$OUT_DIR/$(basename "$3")
SRC=$(cd "$(dirname "$0")/.." && pwd)
# The clang that scripts/deps.sh bench installs on this release (XRay).
CLANG=clang-$(sh "$SRC/scripts/llvm-version.sh") CLANGXX=clang++-$(sh "$SRC/scripts/llvm-version.sh")
RUNS=${BENCH_RUNS:-5} SLOW_RUNS=${BENCH_SLOW_RUNS:-3}
INCLPROF=$B/inclprof
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
say() { echo "bench-rivals: $*" >&2; }

# workload NAME ARGS: the three workloads (about 7 M, 4.5 M and 16 M calls)
read -r -a WORKLOADS <<<"${BENCH_WORKLOADS:-rec tree threads}"
declare -A WARGS=([rec]="32 0 rec" [tree]="16 23 tree" [threads]="28 1500000 threads")

declare -A CMD LABEL UNAVAILABLE RUNS_OF HOOKED BASE CLOCK
ORDER=()
WANTED=" ${BENCH_VARIANTS:-} "
try_build() {
  local name=$1; shift
  if ! "$@" >"$W/$name.build.log" 2>&1; then
    UNAVAILABLE[$name]="build failed: \`$*\`: $(grep -m1 -i 'error\|not found' "$W/$name.build.log" || tail -n1 "$W/$name.build.log")"
    return 1
  fi
}
# variant NAME LABEL RUNS HOOKED BASELINE COMMAND [CLOCK] (COMMAND gets the
# workload's arguments appended; HOOKED: "after" inlining or "before"; CLOCK:
# the floor it is compared with, "fast" (bare rdtsc) or "fenced", the default)
variant() {
  case "$WANTED" in "  " | *" $1 "*) ;; *) case $1 in plain | clang-plain | floor*) ;; *) return ;; esac ;; esac
  ORDER+=("$1"); LABEL[$1]=$2; RUNS_OF[$1]=$3; HOOKED[$1]=$4; BASE[$1]=$5; CMD[$1]=$6; CLOCK[$1]=${7:-fenced}
}
missing() { ORDER+=("$1"); LABEL[$1]=$2; UNAVAILABLE[$1]=$3; }

CF="-O2 -g"
gcc $CF -c "$SRC/bench/bare_record.c" -o bare_record.o &&
gcc $CF -c "$SRC/bench/fi_bare_hooks.c" -o fi_bare_hooks.o &&
gcc $CF -DBARE_FENCED -c "$SRC/bench/fi_bare_hooks.c" -o fi_bare_fenced_hooks.o &&
gcc $CF -DBARE_WRITE -c "$SRC/bench/fi_bare_hooks.c" -o fi_bare_write_hooks.o &&
gcc $CF -DBARE_WRITE -DBARE_FENCED -c "$SRC/bench/fi_bare_hooks.c" -o fi_bare_fenced_write_hooks.o &&
gcc $CF -I"$SRC/include/inclprof" -c "$SRC/bench/bare_table.c" -o bare_table.o &&
gcc $CF -DBARE_FENCED -I"$SRC/include/inclprof" -c "$SRC/bench/bare_table.c" -o bare_table_fenced.o &&
gcc $CF -I"$SRC/include/inclprof" -I"$B/gen" -c "$SRC/bench/agg_inplace.c" -o agg_inplace.o &&
gcc $CF -DAGG_CARRY -I"$SRC/include/inclprof" -I"$B/gen" -c "$SRC/bench/agg_inplace.c" -o agg_inplace_carry.o &&
gcc $CF -DAGG_MINIMAL -I"$SRC/include/inclprof" -I"$B/gen" -c "$SRC/bench/agg_inplace.c" -o agg_inplace_min.o &&
gcc $CF -DAGG_LEAN -I"$SRC/include/inclprof" -I"$B/gen" -c "$SRC/bench/agg_inplace.c" -o agg_inplace_lean.o &&
gcc $CF -DAGG_LEAN -DAGG_NO_LATENCY -I"$SRC/include/inclprof" -I"$B/gen" -c "$SRC/bench/agg_inplace.c" -o agg_inplace_nolat.o &&
gcc $CF -DAGG_LEAN -DAGG_TICK_HISTOGRAM -I"$SRC/include/inclprof" -I"$B/gen" -c "$SRC/bench/agg_inplace.c" -o agg_inplace_tickhist.o &&
gcc $CF -DAGG_LEAN -DAGG_DEFERRED_LATENCY -I"$SRC/include/inclprof" -I"$B/gen" -c "$SRC/bench/agg_inplace.c" -o agg_inplace_deferred.o &&
gcc $CF -DAGG_LEAN -DAGG_DEFERRED_LATENCY -DAGG_TICK_HISTOGRAM -I"$SRC/include/inclprof" -I"$B/gen" -c "$SRC/bench/agg_inplace.c" -o agg_inplace_deferred_tick.o &&
gcc $CF -c "$SRC/bench/callheavy.c" -o plain.o && gcc plain.o -o plain -lpthread &&
gcc $CF -finstrument-functions -c "$SRC/bench/callheavy.c" -o fi.o &&
gcc fi.o fi_bare_hooks.o bare_record.o -o fi-bare -lpthread &&
gcc fi.o fi_bare_fenced_hooks.o bare_record.o -o fi-bare-fenced -lpthread &&
gcc fi.o fi_bare_write_hooks.o bare_record.o -o fi-bare-write -lpthread &&
gcc fi.o fi_bare_fenced_write_hooks.o bare_record.o -o fi-bare-fenced-write -lpthread &&
gcc fi.o -o fi-uf -lpthread || exit 1
variant plain "no instrumentation (gcc -O2)" "$RUNS" none plain "./plain"
variant floor "the floor, bare clock: -finstrument-functions -> \`rdtsc\` + 16-byte TLS append" "$RUNS" before plain "./fi-bare" fast
variant floor-fenced "the floor, fenced clock: the same with \`lfence; rdtsc\`" "$RUNS" before plain "./fi-bare-fenced" fenced
variant floor-write "the writing floor, bare clock: the floor writing every full buffer raw (16 bytes per event)" \
  "$RUNS" before plain "rm -f floor.raw && BARE_OUT=floor.raw ./fi-bare-write" fast
variant floor-fenced-write "the writing floor, fenced clock" "$RUNS" before plain "rm -f floor.raw && BARE_OUT=floor.raw ./fi-bare-fenced-write" fenced
if try_build ip gcc $CF -fplugin="$B/inclprof.so" -c "$SRC/bench/callheavy.c" -o ip.o &&
   try_build ip gcc ip.o -o ip -lpthread &&
   try_build ip gcc ip.o bare_table.o bare_record.o -o ip-bare -lpthread &&
   try_build ip gcc ip.o bare_table_fenced.o bare_record.o -o ip-bare-fenced -lpthread &&
   try_build ip gcc ip.o agg_inplace.o -o ip-agg-inplace -lpthread &&
   try_build ip gcc ip.o agg_inplace_carry.o -o ip-agg-inplace-carry -lpthread &&
   try_build ip gcc $CF -fplugin="$B/inclprof.so" -fplugin-arg-inclprof-probe-form=call -c "$SRC/bench/callheavy.c" -o ipc.o &&
   try_build ip gcc ipc.o bare_table_fenced.o bare_record.o -o ipc-bare-fenced -lpthread &&
   try_build ip gcc ipc.o agg_inplace.o -o ipc-agg-inplace -lpthread &&
   try_build ip gcc ipc.o agg_inplace_carry.o -o ipc-agg-inplace-carry -lpthread &&
   try_build ip gcc ipc.o agg_inplace_min.o -o ipc-agg-inplace-min -lpthread &&
   try_build ip gcc ipc.o agg_inplace_lean.o -o ipc-agg-inplace-lean -lpthread &&
   try_build ip gcc ipc.o agg_inplace_nolat.o -o ipc-agg-inplace-nolat -lpthread &&
   try_build ip gcc ipc.o agg_inplace_tickhist.o -o ipc-agg-inplace-tickhist -lpthread &&
   try_build ip gcc ipc.o agg_inplace_deferred.o -o ipc-agg-inplace-deferred -lpthread &&
   try_build ip gcc ipc.o agg_inplace_deferred_tick.o -o ipc-agg-inplace-deferred-tick -lpthread; then
  variant ip-bare "plugin probes -> the bare hook (\`rdtsc\`) through the hook table" "$RUNS" after plain "./ip-bare" fast
  variant ip-bare-fenced "plugin probes -> the fenced bare hook through the hook table" "$RUNS" after plain "./ip-bare-fenced"
  variant ip "inclprof record, kevents, writer auto (the defaults)" "$RUNS" after plain \
    "rm -rf ip.data && $INCLPROF record --transitions kevents -o ip.data -- ./ip"
  variant ip-agg "inclprof record --aggregate, kevents (call-path trees in the process, no trace)" "$RUNS" after plain \
    "rm -rf ipa.data && $INCLPROF record --aggregate --transitions kevents -o ipa.data -- ./ip"
  variant ip-agg-fast "inclprof record --aggregate, kevents, INCLPROF_CLOCK=fast" "$RUNS" after plain \
    "rm -rf ipaf.data && INCLPROF_CLOCK=fast $INCLPROF record --aggregate --transitions kevents -o ipaf.data -- ./ip" fast
  variant ip-agg-inplace "plugin probes -> hooks updating the call-path tree in place (bench/agg_inplace.c: fenced clock, transition counter, compensation without carry)" \
    "$RUNS" after plain "./ip-agg-inplace"
  variant ip-agg-inplace-carry "the same with the fold's compensation (what a short interval owes carried by its level)" \
    "$RUNS" after plain "./ip-agg-inplace-carry"
  variant ipc-bare-fenced "probe-form=call: the plugin's call-form probes -> the fenced bare hook" "$RUNS" after plain "./ipc-bare-fenced"
  variant ipc-agg-inplace "probe-form=call -> the in-place tree hooks" "$RUNS" after plain "./ipc-agg-inplace"
  variant ipc-agg-inplace-min "probe-form=call -> the in-place tree hooks, minimal: clock, transition counter, shadow stack, path, calls and ticks" \
    "$RUNS" after plain "./ipc-agg-inplace-min"
  variant ipc-agg-inplace-lean "probe-form=call -> the in-place tree hooks, lean: a fixed cost per probe, a 64-bit ns conversion" \
    "$RUNS" after plain "./ipc-agg-inplace-lean"
  variant ipc-agg-inplace-nolat "probe-form=call -> the lean in-place tree hooks without minimum, maximum and histogram" \
    "$RUNS" after plain "./ipc-agg-inplace-nolat"
  variant ipc-agg-inplace-tickhist "probe-form=call -> the lean in-place tree hooks, the histogram in ticks, no minimum and maximum" \
    "$RUNS" after plain "./ipc-agg-inplace-tickhist"
  variant ipc-agg-inplace-deferred "probe-form=call -> the lean in-place tree hooks, each call's time stored and binned 256 at a time" \
    "$RUNS" after plain "./ipc-agg-inplace-deferred"
  variant ipc-agg-inplace-deferred-tick "probe-form=call -> the lean in-place tree hooks, the calls' times binned 256 at a time into a histogram of ticks" \
    "$RUNS" after plain "./ipc-agg-inplace-deferred-tick"
  variant ipc-agg-inplace-carry "probe-form=call -> the in-place tree hooks, the fold's compensation" "$RUNS" after plain "./ipc-agg-inplace-carry"
  variant ip-thread "inclprof record, kevents, INCLPROF_WRITER=thread" "$RUNS" after plain \
    "rm -rf ipt.data && INCLPROF_WRITER=thread $INCLPROF record --transitions kevents -o ipt.data -- ./ip"
  variant ip-inline "inclprof record, kevents, INCLPROF_WRITER=inline" "$RUNS" after plain \
    "rm -rf ipi.data && INCLPROF_WRITER=inline $INCLPROF record --transitions kevents -o ipi.data -- ./ip"
  variant ip-none "inclprof record, --transitions none, writer auto" "$RUNS" after plain \
    "rm -rf ipn.data && $INCLPROF record --transitions none -o ipn.data -- ./ip"
  variant ip-fast "inclprof record, kevents, writer auto, INCLPROF_CLOCK=fast" "$RUNS" after plain \
    "rm -rf ipf.data && INCLPROF_CLOCK=fast $INCLPROF record --transitions kevents -o ipf.data -- ./ip" fast
  variant ip-fast-thread "inclprof record, kevents, INCLPROF_CLOCK=fast INCLPROF_WRITER=thread" "$RUNS" after plain \
    "rm -rf ipft.data && INCLPROF_CLOCK=fast INCLPROF_WRITER=thread $INCLPROF record --transitions kevents -o ipft.data -- ./ip" fast
  variant ip-fast-inline "inclprof record, kevents, INCLPROF_CLOCK=fast INCLPROF_WRITER=inline" "$RUNS" after plain \
    "rm -rf ipfi.data && INCLPROF_CLOCK=fast INCLPROF_WRITER=inline $INCLPROF record --transitions kevents -o ipfi.data -- ./ip" fast
else
  missing ip "inclprof" "${UNAVAILABLE[ip]}"
fi
if ! command -v "$CLANGXX" >/dev/null; then
  missing xray-fdr "XRay FDR" "$CLANG is not installed (scripts/deps.sh bench installs it with LLVM's XRay runtime)"
elif try_build xray "$CLANG" $CF -fxray-instrument -fxray-instruction-threshold=1 -c "$SRC/bench/callheavy.c" -o xray.o &&
     try_build xray "$CLANGXX" -O2 -c "$SRC/bench/xray_fdr_init.cc" -o xray_fdr_init.o &&
     try_build xray "$CLANGXX" -fxray-instrument xray.o xray_fdr_init.o -o xray-fdr -lpthread &&
     try_build xray "$CLANGXX" -fxray-instrument xray.o -o xray-basic -lpthread &&
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
declare -A WORK CPU EXIT START FAILED CALLS INL
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
      cpu=$(sed -n 's/.* cpu_ns=\([0-9]*\) .*/\1/p' "$v.out")
      end=$(sed -n 's/.* end_unix_ns=\([0-9]*\)$/\1/p' "$v.out")
      if [ $rc -ne 0 ] || [ -z "$work" ] || [ -z "$end" ]; then
        FAILED[$k]="exit $rc: $(tail -n1 "$v.err")"
        continue
      fi
      CALLS[$wl]=$(sed -n 's/.* calls=\([0-9]*\) .*/\1/p' "$v.out")
      INL[$wl]=$(sed -n 's/.*inlinable_calls=\([0-9]*\) .*/\1/p' "$v.out")
      WORK[$k]="${WORK[$k]:-} $work"
      CPU[$k]="${CPU[$k]:-} $cpu"
      ex=$(awk -v e="$end" -v b="$t1" 'BEGIN{printf "%.0f", b*1e9-e}')
      EXIT[$k]="${EXIT[$k]:-} $ex"
      START[$k]="${START[$k]:-} $(awk -v a="$t0" -v b="$t1" -v w="$work" -v x="$ex" 'BEGIN{printf "%.0f", (b-a)*1e9-w-x}')"
    done
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END{if(NR==0)exit 1; print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
# per_call TIMES NS SPREAD: for every variant and workload, ns per hooked call
# of the median of TIMES (WORK: wall, CPU: the process's CPU time) over the
# baseline's median, into NS[variant/workload], and of the lowest and highest
# run, into SPREAD
per_call() {
  local -n times=$1 ns=$2 spread=$3
  local wl v k w w0 n
  for wl in "${WORKLOADS[@]}"; do
    for v in "${ORDER[@]}"; do
      k=$v/$wl
      [ -n "${times[$k]:-}" ] && [ "${HOOKED[$v]}" != none ] || continue
      w=$(echo "${times[$k]}" | median); w0=$(echo "${times[${BASE[$v]}/$wl]:-}" | median) || continue
      n=${CALLS[$wl]}; [ "${HOOKED[$v]}" = before ] && n=$((n + ${INL[$wl]}))
      ns[$k]=$(awk -v w="$w" -v w0="$w0" -v n="$n" 'BEGIN{printf "%.2f", (w-w0)/n}')
      spread[$k]=$(echo "${times[$k]}" | tr ' ' '\n' | grep . | sort -n | sed -n '1p;$p' | tr '\n' ' ' |
        awk -v w0="$w0" -v n="$n" '{printf "%.1f–%.1f", ($1-w0)/n, ($2-w0)/n}')
    done
  done
}
declare -A NS SPREAD NS_CPU SPREAD_CPU
per_call WORK NS SPREAD
per_call CPU NS_CPU SPREAD_CPU
# floor_of VARIANT: the floor it is compared with
floor_of() { [ "${CLOCK[$1]:-fenced}" = fast ] && echo floor || echo floor-fenced; }

{
echo "## inclprof against the floor and the strongest rivals"
echo
echo "\`bench/rivals.sh\` (\`make bench-rivals\`): $(for wl in "${WORKLOADS[@]}"; do printf '%s (`callheavy %s`, %s calls), ' "$wl" "${WARGS[$wl]}" "${CALLS[$wl]:-?}"; done | sed 's/, $//')."
echo "In-process ns per hooked call (entry + exit) = (work − uninstrumented work) ÷ hooked calls,"
echo "medians of $RUNS runs ($SLOW_RUNS for XRay basic and uftrace), all variants interleaved."
echo "*range*: the lowest and highest run. *× ip*: ratio to inclprof (kevents, the defaults). *× floor*: ratio to the"
echo "floor of the same clock read: the bare hook through -finstrument-functions reading \`rdtsc\` for INCLPROF_CLOCK=fast"
echo "and the bare-clock rows, \`lfence; rdtsc\` for inclprof's default fenced clock and for the rivals (XRay reads"
echo "\`rdtscp\`, uftrace \`clock_gettime\`: ordered reads too; gprof reads no clock)."
echo
# table NS SPREAD: one row per variant, four columns per workload
table() {
  local -n ns=$1 spread=$2
  local v wl x
  printf '| method |'; for wl in "${WORKLOADS[@]}"; do printf ' %s ns/call | range | × ip | × floor |' "$wl"; done; echo
  printf '|---|'; for wl in "${WORKLOADS[@]}"; do printf -- '---:|---:|---:|---:|'; done; echo
  for v in "${ORDER[@]}"; do
    [ "${HOOKED[$v]:-}" = none ] && continue
    if [ -n "${UNAVAILABLE[$v]:-}" ]; then echo "| ${LABEL[$v]} | not run: ${UNAVAILABLE[$v]//|/\\|} |"; continue; fi
    printf '| %s |' "${LABEL[$v]}"
    for wl in "${WORKLOADS[@]}"; do
      x=${ns[$v/$wl]:-}
      if [ -z "$x" ]; then printf ' failed: %s | – | – | – |' "${FAILED[$v/$wl]:-not measured}" | tr -d '\n'; continue; fi
      awk -v x="$x" -v r="${spread[$v/$wl]}" -v ip="${ns[ip/$wl]:-}" -v fl="${ns[$(floor_of "$v")/$wl]:-}" 'BEGIN{
        printf " %.1f | %s | %s | %s |", x, r, (ip > 0 ? sprintf("%.2f×", x/ip) : "–"), (fl > 0 ? sprintf("%.2f×", x/fl) : "–") }'
    done
    echo
  done
  echo
}
table NS SPREAD
echo "The same in CPU time: (the process's CPU time in the workload − the uninstrumented one's) ÷ hooked calls,"
echo "every thread of the process counted (inclprof's writer thread too: its encoding is part of the cost wherever it"
echo "runs; the floor writes nothing). On a machine that other work keeps busy this is the steadier figure: wall time"
echo "then measures the scheduler's share as much as the code."
echo
table NS_CPU SPREAD_CPU
if [ -n "${NS[ip-bare/${WORKLOADS[0]}]:-}" ]; then
  echo "Where inclprof's cost over the floor of its clock goes (ns per call, wall): the hook call (on x86-64 the stub"
  echo "and trampoline) = plugin probes → bare hook − floor; the rest (transition counter, slot reservation, hand-off or"
  echo "encoding) = inclprof (writer auto) − plugin probes → bare hook. *CPU × floor*: the same ratio in CPU time;"
  echo "*CPU × writing floor*: against the floor that also writes its records out (raw, 16 bytes per event)."
  echo
  echo "| workload | clock | floor | hook call | the rest | inclprof | × floor | CPU × floor | CPU × writing floor |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
  for wl in "${WORKLOADS[@]}"; do
    for c in "fast:floor:ip-bare:ip-fast" "fenced:floor-fenced:ip-bare-fenced:ip"; do
      IFS=: read -r clk fl bare ipv <<<"$c"
      [ -n "${NS[$fl/$wl]:-}" ] && [ -n "${NS[$bare/$wl]:-}" ] && [ -n "${NS[$ipv/$wl]:-}" ] || continue
      awk -v wl="$wl" -v c="$clk" -v f="${NS[$fl/$wl]}" -v b="${NS[$bare/$wl]}" -v i="${NS[$ipv/$wl]}" \
        -v cf="${NS_CPU[$fl/$wl]:-}" -v ci="${NS_CPU[$ipv/$wl]:-}" -v cw="${NS_CPU[$fl-write/$wl]:-}" \
        'BEGIN{printf "| %s | %s | %.1f | %+.1f | %+.1f | %.1f | %.2f× | %s | %s |\n", wl, c, f, b-f, i-b, i, i/f,
          (cf > 0 ? sprintf("%.2f×", ci/cf) : "–"), (cw > 0 ? sprintf("%.2f×", ci/cw) : "–")}'
    done
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
    floor-write | floor-fenced-write) d=floor.raw ;; ip-fast) d=ipf.data ;; ip-fast-thread) d=ipft.data ;; ip-fast-inline) d=ipfi.data ;; ip-agg) d=ipa.data ;; ip-agg-fast) d=ipaf.data ;;
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
