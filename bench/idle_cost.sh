#!/bin/bash
# idle_cost.sh - `make bench-idle`: what a plugin build costs when it is not
# recording.  The call-heavy workload (bench/callheavy.c, in-process time) and
# Debian's Lua interpreter (whole-process time on a call-dense script) are
# built plain and with the plugin; the plugin build runs without the runtime
# (as it does while paused: the hooks are null either way) and recorded.  Runs
# alternate round-robin; medians of BENCH_RUNS.  Also the code size of both
# builds (`size`'s text).  Writes Markdown to OUT_MD.
#   usage: bench/idle_cost.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_RUNS (7), BENCH_DEPTH (30), BENCH_LOOPS (3000000),
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
PLUGIN=$B/inclprof.so INCLPROF=$B/inclprof
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
say() { echo "bench-idle: $*" >&2; }

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

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

# --- Lua: whole-process wall time of a call-dense script -----------------------
lua_row=""
cache="$SRC/build/debian-src"
if ls "$cache"/lua5.4_*.orig.tar.gz >/dev/null 2>&1; then
  for v in plain plugin; do
    mkdir "lua_$v" && tar xzf "$cache"/lua5.4_*.orig.tar.gz -C "lua_$v" --strip-components=1
    extra=""; [ $v = plugin ] && extra="-fplugin=$PLUGIN $PARGS"
    make -C "lua_$v/src" -j2 linux-noreadline MYCFLAGS="$extra" >"lua_$v.log" 2>&1 || { say "Lua ($v) did not build: see $W/lua_$v.log"; lua_row=skip; }
  done
  printf 'local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end\nlocal t = {}\nfor i = 1, 200000 do t[i] = (i * 7919) %% 200000 end\ntable.sort(t, function(a, b) return a > b end)\nprint(fib(27), t[1])\n' >work.lua
  if [ -z "$lua_row" ]; then
    wall() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $((t1 - t0)); }
    for i in $(seq "$RUNS"); do
      wall lua_plain/src/lua work.lua >>lua_plain.ns
      wall lua_plugin/src/lua work.lua >>lua_idle.ns
    done
    lua_row=ok
  fi
else
  lua_row="missing"
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
p=$(median <ch_plain.ns) i=$(median <ch_idle.ns) r=$(median <ch_rec.ns)
nspc() { awk -v t="$1" -v c="$calls" 'BEGIN {printf "%.2f", t / c}'; }
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
  case $lua_row in
    ok)
      lp=$(median <lua_plain.ns) li=$(median <lua_idle.ns)
      echo "| Debian Lua 5.4, fib(27) + sort of 200 000, ms wall | $(awk -v v="$lp" 'BEGIN {printf "%.1f", v / 1e6}') | $(awk -v v="$li" 'BEGIN {printf "%.1f", v / 1e6}') ($(ratio "$li" "$lp")×) | |" ;;
    missing) echo "| Debian Lua 5.4 | not measured: its source is fetched by \`make check\` (tests/integration/plugin_debian_lua.sh) into build/debian-src | | |" ;;
    *) echo "| Debian Lua 5.4 | not measured: the build failed | | |" ;;
  esac
  echo
  text() { size "$1" | awk 'NR == 2 {print $1}'; }
  grow() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%d (+%.0f%%)", b, (b / a - 1) * 100}'; }
  echo "| code size (\`size\`'s text, bytes) | plain | plugin build |"
  echo "|---|---:|---:|"
  echo "| call-heavy | $(text ch_plain) | $(grow "$(text ch_plain)" "$(text ch_plugin)") |"
  [ "$lua_row" = ok ] && echo "| Debian Lua 5.4 (\`lua\`) | $(text lua_plain/src/lua) | $(grow "$(text lua_plain/src/lua)" "$(text lua_plugin/src/lua)") |"
} >"$OUT"
cat "$OUT"
