#!/bin/bash
# idle_cost.sh - `make bench-idle`: what a plugin build costs when it is not
# recording.  The call-heavy workload (bench/callheavy.c, in-process time),
# a call-dense recursive walk (tests/programs/convert/dense_walk.c, its own
# CPU time) and Debian's Lua and CPython interpreters (the user CPU time of
# call-dense scripts; built by bench/dense_builds.sh) are built plain and
# with the plugin, and their instructions counted by callgrind; the plugin
# build runs without the runtime (as it does while paused: the hooks are null
# either way), call-heavy also recorded.  Runs alternate round-robin; medians
# of BENCH_RUNS, and for the CPU times the median of the pairs' ratios too.
# Also the code size of both builds (`size`'s text).  Writes Markdown to
# OUT_MD.
#   usage: bench/idle_cost.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_RUNS (7), BENCH_DEPTH (30), BENCH_LOOPS (3000000),
#          BENCH_IDLE_PROGRAMS (the interpreters, default "lua python"),
#          BENCH_PLUGIN_ARGS (more flags for the plugin builds, e.g.
#          -fplugin-arg-inclprof-probe-form=call)
set -u
[ $# -eq 3 ] || { echo "usage: bench/idle_cost.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$1 W=$2
mkdir -p "$(dirname "$3")" || exit 1
OUT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 1
SRC=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${BENCH_RUNS:-7} DEPTH=${BENCH_DEPTH:-30} LOOPS=${BENCH_LOOPS:-3000000}
PARGS=${BENCH_PLUGIN_ARGS:-}
IDLE_PROGRAMS=${BENCH_IDLE_PROGRAMS-lua python} # (field.sh, sourced below, sets PROGRAMS)
PLUGIN=$B/inclprof.so INCLPROF=$B/inclprof
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
say() { echo "bench-idle: $*" >&2; }

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# paired A B: the median of the ratios B/A of the runs' pairs (line by line)
paired() { paste "$1" "$2" | awk '$1 > 0 {printf "%.4f\n", $2 / $1}' | median | awk '{printf "%.3f", $1}'; }

# --- call-heavy: in-process nanoseconds of the workload ------------------------
gcc -O2 "$SRC/bench/callheavy.c" -o ch_plain || exit 1
# shellcheck disable=SC2086
gcc -O2 -fplugin="$PLUGIN" $PARGS "$SRC/bench/callheavy.c" -o ch_plugin || exit 1
calls=$(./ch_plain "$DEPTH" "$LOOPS" | sed -n 's/^work_ns=[0-9]* cpu_ns=[0-9]* calls=\([0-9]*\).*/\1/p')
work() { sed -n 's/^work_ns=\([0-9]*\).*/\1/p'; }
for i in $(seq "$RUNS"); do
  ./ch_plain "$DEPTH" "$LOOPS" | work >>ch_plain.ns
  ./ch_plugin "$DEPTH" "$LOOPS" | work >>ch_idle.ns
  "$INCLPROF" record -o "rec$i" ./ch_plugin "$DEPTH" "$LOOPS" 2>/dev/null | work >>ch_rec.ns
  rm -rf "rec$i"
done
say "call-heavy done"

# --- the recursive walk: its own CPU time (dense_walk.c), 2 to 3 ns a call ----
WALK_REPS=2000
# shellcheck disable=SC2086
gcc -O2 -g "$SRC/tests/programs/convert/dense_walk.c" -o walk_plain &&
  gcc -O2 -g -fplugin="$PLUGIN" $PARGS "$SRC/tests/programs/convert/dense_walk.c" -o walk_plugin || exit 1
walk_ns() { sed -n 's/^work_ns \([0-9]*\)$/\1/p'; }
walk_calls=$(./walk_plain "$WALK_REPS" | sed -n 's/^walk_calls \([0-9]*\)$/\1/p')
for i in $(seq "$RUNS"); do
  ./walk_plain "$WALK_REPS" | walk_ns >>walk_plain.ns
  ./walk_plugin "$WALK_REPS" | walk_ns >>walk_idle.ns
done
say "walk done"

# --- Debian's Lua and CPython: user CPU time and instructions ---------------
# bench/dense_builds.sh builds them plain and with the plugin (cached under
# WORK_DIR/../dense, shared with bench-dense); Lua runs the script below,
# CPython the Python loop of bench-dense (a million additions in a function).
DENSE_DIR=$(cd "$W/.." && pwd)/dense INCLPROF_SRC=$SRC INCLPROF_PLUGIN=$PLUGIN
mkdir -p "$DENSE_DIR"
# shellcheck source=dense_builds.sh
. "$SRC/bench/dense_builds.sh"
dense_py 1000000
printf 'local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end\nlocal t = {}\nfor i = 1, 200000 do t[i] = (i * 7919) %% 200000 end\ntable.sort(t, function(a, b) return a > b end)\nprint(fib(27), t[1])\n' >work.lua
idle_run() { case $1 in python) "${@:2}" -S -E "$DENSE_DIR/loop.py" ;; lua) "${@:2}" work.lua ;; esac; }
declare -A IBIN IWHY
for p in $IDLE_PROGRAMS; do
  for fl in plain plugin; do
    if [ -n "$PARGS" ] && [ $fl = plugin ]; then
      IWHY[$p]="not measured with BENCH_PLUGIN_ARGS"
      continue
    fi
    dense_build "$p" "$fl"
    IBIN[$p/$fl]=$BIN
    [ -n "$BIN" ] || IWHY[$p]=$WHY
  done
done
for i in $(seq "$RUNS"); do
  for p in $IDLE_PROGRAMS; do
    [ -z "${IWHY[$p]:-}" ] || continue
    idle_run "$p" cpu_ms "${IBIN[$p/plain]}" >>"$p.plain.ms"
    idle_run "$p" cpu_ms "${IBIN[$p/plugin]}" >>"$p.idle.ms"
  done
done
say "lua and python timed"
declare -A INS
# call-heavy as docs/plugin.md counts it; the walk's instructions a call
# (800 walks less 400: start-up cancels out)
INS[ch/plain]=$(instructions ./ch_plain 24 100000)
INS[ch/plugin]=$(instructions ./ch_plugin 24 100000)
for fl in plain plugin; do
  INS[walk/$fl]=$(($(instructions "./walk_$fl" 800) - $(instructions "./walk_$fl" 400)))
done
for p in $IDLE_PROGRAMS; do
  [ -z "${IWHY[$p]:-}" ] || continue
  [ "$p" = python ] && dense_py 100000
  INS[$p/plain]=$(idle_run "$p" instructions "${IBIN[$p/plain]}")
  INS[$p/plugin]=$(idle_run "$p" instructions "${IBIN[$p/plugin]}")
  [ "$p" = python ] && INS[$p/empty]=$(instructions "${IBIN[$p/plain]}" -S -E -c pass) &&
    INS[$p/empty_plugin]=$(instructions "${IBIN[$p/plugin]}" -S -E -c pass)
done
dense_py 1000000
say "instructions counted"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
p=$(median <ch_plain.ns) i=$(median <ch_idle.ns) r=$(median <ch_rec.ns)
nspc() { awk -v t="$1" -v c="$calls" 'BEGIN {printf "%.2f", t / c}'; }
per_call() { awk -v n="$1" -v c="$2" 'BEGIN {printf "%.2f", n / c}'; }
{
  echo "## Cost when not recording (\`make bench-idle\`)"
  echo
  echo "A plugin build whose probes find their hooks null (no runtime, or paused)"
  echo "pays a test and a branch per probe. Medians of $RUNS alternating runs.${PARGS:+ Plugin builds with $PARGS.}"
  echo
  echo "| program | plain | plugin build, no runtime or paused | plugin build, recording |"
  echo "|---|---:|---:|---:|"
  echo "| call-heavy ($calls calls), ns of work | $p | $i ($(ratio "$i" "$p")×) | $r ($(ratio "$r" "$p")×) |"
  echo "| call-heavy, ns per call | $(nspc "$p") | $(nspc "$i") | $(nspc "$r") |"
  wp=$(median <walk_plain.ns) wi=$(median <walk_idle.ns)
  echo "| recursive walk ($walk_calls calls, \`dense_walk.c\`), ns of CPU per call (median of the pairs' ratios) | $(per_call "$wp" "$walk_calls") | $(per_call "$wi" "$walk_calls") ($(ratio "$wi" "$wp")×; $(paired walk_plain.ns walk_idle.ns)×) | |"
  for p in $IDLE_PROGRAMS; do
    case $p in
    lua) name="Debian Lua 5.4, fib(27) and a sort of 200 000 (user CPU, ms)" ;;
    python) name="Debian CPython 3.11, a loop of 10⁶ additions in a function (user CPU, ms)" ;;
    esac
    if [ -n "${IWHY[$p]:-}" ]; then
      echo "| $name | not measured: ${IWHY[$p]} | | |"
      continue
    fi
    lp=$(median <"$p.plain.ms") li=$(median <"$p.idle.ms")
    echo "| $name | $lp | $li ($(ratio "$li" "$lp")×; $(paired "$p.plain.ms" "$p.idle.ms")×) | |"
  done
  echo
  echo "| instructions (callgrind) | plain | plugin build, not recording |"
  echo "|---|---:|---:|"
  echo "| call-heavy (\`callheavy 24 100000\`) | ${INS[ch/plain]} | ${INS[ch/plugin]} ($(ratio "${INS[ch/plugin]}" "${INS[ch/plain]}")×) |"
  wc=$((400 * walk_calls / WALK_REPS))
  echo "| recursive walk, per call (400 walks more: $wc calls) | $(per_call "${INS[walk/plain]}" "$wc") | $(per_call "${INS[walk/plugin]}" "$wc") ($(ratio "${INS[walk/plugin]}" "${INS[walk/plain]}")×) |"
  for p in $IDLE_PROGRAMS; do
    [ -z "${IWHY[$p]:-}" ] || continue
    if [ "$p" = python ]; then
      pl=$((INS[$p/plain] - INS[$p/empty])) pi=$((INS[$p/plugin] - INS[$p/empty_plugin]))
      echo "| Debian CPython 3.11, the loop of 10⁵ additions (its start-up taken off: ${INS[$p/empty]} and ${INS[$p/empty_plugin]}) | $pl | $pi ($(ratio "$pi" "$pl")×) |"
    else
      echo "| Debian Lua 5.4, fib(27) and a sort of 200 000 | ${INS[$p/plain]} | ${INS[$p/plugin]} ($(ratio "${INS[$p/plugin]}" "${INS[$p/plain]}")×) |"
    fi
  done
  echo
  text() { size "$1" | awk 'NR == 2 {print $1}'; }
  grow() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%d (+%.0f%%)", b, (b / a - 1) * 100}'; }
  echo "| code size (\`size\`'s text, bytes) | plain | plugin build |"
  echo "|---|---:|---:|"
  echo "| call-heavy | $(text ch_plain) | $(grow "$(text ch_plain)" "$(text ch_plugin)") |"
  for p in $IDLE_PROGRAMS; do
    [ -z "${IWHY[$p]:-}" ] || continue
    echo "| Debian $( [ "$p" = lua ] && echo "Lua 5.4 (\`lua\`)" || echo "CPython 3.11 (\`python\`)") | $(text "${IBIN[$p/plain]}") | $(grow "$(text "${IBIN[$p/plain]}")" "$(text "${IBIN[$p/plugin]}")") |"
  done
} >"$OUT"
cat "$OUT"
