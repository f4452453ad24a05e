#!/bin/bash
# dense.sh - `make bench-dense`: how far the values are from the truth on
# call-dense real code, where the probe cost taken out of every interval is
# many times the program's own time: Debian's CPython 3.11 running a Python
# loop (a nanosecond or two of the interpreter's code per event), Debian's
# Lua 5.4 on the field suite's script and a C tree walk (2 to 3 ns per
# call; bench/dense_builds.sh).  The truth is
# the user CPU time of the plain build (an uninstrumented twin run of the same
# work); the value is Application Inclusive of `main` recorded with the
# defaults, with INCLPROF_CLOCK=fast, and rebuilt with the filter `inclprof
# suggest` writes from the default run.  Beside them the plugin build's own
# CPU time without the runtime (what compensation cannot remove: the probes'
# tests and the calls the plugin keeps), the header's probe cost ratio and
# the events.  Medians of BENCH_RUNS interleaved runs.  Reports; asserts
# nothing.
#   usage: bench/dense.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_RUNS (5), BENCH_DENSE ("python lua walk")
set -u
[ $# -eq 3 ] || { echo "usage: bench/dense.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$1 W=$2
mkdir -p "$W" "$(dirname "$3")" || exit 1
OUT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 1
INCLPROF_SRC=$(cd "$(dirname "$0")/.." && pwd)
INCLPROF=$B/inclprof INCLPROF_PLUGIN=$B/inclprof.so
RUNS=${BENCH_RUNS:-5}
read -r -a PROGS <<<"${BENCH_DENSE:-python lua walk}"
DENSE_DIR=$(cd "$W" && pwd)
say() { echo "bench-dense: $*" >&2; }
# shellcheck source=dense_builds.sh
. "$INCLPROF_SRC/bench/dense_builds.sh"
dense_py 1000000
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END{if(NR==0)exit 1; print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }

# app_main DIR: Application Inclusive of main, ms
app_main() {
  "$INCLPROF" export --format csv -o "$1.csv" "$1" 2>/dev/null &&
    python3 "$INCLPROF_SRC/scripts/csv_query.py" "$1.csv" '^main$' application_inclusive_ns |
    awk '{ s += $1 } END { printf "%.2f", s / 1e6 }'
}
# ratio DIR: the header's probe cost ratio ("-" when it does not warn)
ratio() {
  "$INCLPROF" report "$1" 2>/dev/null | sed -n 's/^warning: *probe cost: .* Application time, \([0-9.]*\) times .*/\1/p' |
    grep . || echo "under 0.5"
}
events() { "$INCLPROF" info "$1" 2>/dev/null | sed -n 's/^events: *\([0-9]*\).*/\1/p'; }
# rec DIR PROGRAM BIN [VAR=VALUE...]: a recorded run into DIR
rec() { rm -rf "$1" && dense_run "$2" env "${@:4}" "$INCLPROF" record -o "$1" -- "$3" >/dev/null 2>&1; }

declare -A BINOF WHYOF V EV RATIO
for p in "${PROGS[@]}"; do
  for fl in plain plugin; do
    dense_build "$p" "$fl"
    BINOF[$p/$fl]=$BIN WHYOF[$p/$fl]=$WHY
  done
  if [ -n "${BINOF[$p/plugin]}" ]; then
    say "$p: a default run for inclprof suggest"
    rec "$W/$p-suggest.data" "$p" "${BINOF[$p/plugin]}"
    DENSE_FILTER=$W/$p.filter
    rm -f "$DENSE_FILTER"
    if ! "$INCLPROF" suggest "$W/$p-suggest.data" -o "$DENSE_FILTER" >"$W/$p.suggest" 2>&1; then
      BINOF[$p/filtered]= WHYOF[$p/filtered]="inclprof suggest failed: $(tail -n1 "$W/$p.suggest")"
    elif [ ! -s "$DENSE_FILTER" ]; then # (the walk: one recursive function, kept)
      BINOF[$p/filtered]= WHYOF[$p/filtered]="inclprof suggest excludes nothing"
    else
      dense_build "$p" filtered
      BINOF[$p/filtered]=$BIN WHYOF[$p/filtered]=$WHY
    fi
  fi
done

for ((r = 1; r <= RUNS; r++)); do
  for p in "${PROGS[@]}"; do
    say "run $r/$RUNS: $p"
    [ -n "${BINOF[$p/plain]}" ] && V[$p/plain]="${V[$p/plain]:-} $(dense_run "$p" cpu_ms "${BINOF[$p/plain]}")"
    [ -n "${BINOF[$p/plugin]}" ] || continue
    V[$p/idle]="${V[$p/idle]:-} $(dense_run "$p" cpu_ms "${BINOF[$p/plugin]}")"
    rec "$W/$p-default.data" "$p" "${BINOF[$p/plugin]}"
    V[$p/default]="${V[$p/default]:-} $(app_main "$W/$p-default.data")"
    RATIO[$p/default]="${RATIO[$p/default]:-} $(ratio "$W/$p-default.data")"
    EV[$p/default]=$(events "$W/$p-default.data")
    rec "$W/$p-fast.data" "$p" "${BINOF[$p/plugin]}" INCLPROF_CLOCK=fast
    V[$p/fast]="${V[$p/fast]:-} $(app_main "$W/$p-fast.data")"
    [ -n "${BINOF[$p/filtered]}" ] || continue
    rec "$W/$p-filtered.data" "$p" "${BINOF[$p/filtered]}"
    V[$p/filtered]="${V[$p/filtered]:-} $(app_main "$W/$p-filtered.data")"
    RATIO[$p/filtered]="${RATIO[$p/filtered]:-} $(ratio "$W/$p-filtered.data")"
    EV[$p/filtered]=$(events "$W/$p-filtered.data")
  done
done

cell() { # cell PROGRAM KEY: "VALUE ms (VALUE / TRUTH×)"
  local v t
  v=$(echo "${V[$1/$2]:-}" | median) || { echo "not run: ${WHYOF[$1/${3:-plugin}]:-failed}"; return; }
  t=$(echo "${V[$1/plain]:-}" | median) || t=
  awk -v v="$v" -v t="$t" 'BEGIN { if (t > 0) printf "%.1f ms (%.2f×)", v, v / t; else printf "%.1f ms", v }'
}
first() { echo "$1" | awk '{ print $1 }'; }
{
  echo "## Call-dense code (\`make bench-dense\`)"
  echo
  echo "Application Inclusive of \`main\` against the truth: the user CPU time of the plain build"
  echo "running the same work. Medians of $RUNS interleaved runs; load average $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "*ratio*: the probe cost the report takes out of the Application time ÷ the time left (its header's warning)."
  echo
  echo "| program | truth: plain CPU | plugin build, not recording | recorded (defaults) | ratio, events | INCLPROF_CLOCK=fast | rebuilt with \`suggest\`'s filter | ratio, events |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for p in "${PROGS[@]}"; do
    case $p in
    python) name="CPython 3.11, a loop of 10⁶ additions in a function" ;;
    lua) name="Lua 5.4, tests/field/work.lua" ;;
    walk) name="C, a recursive walk of a 4095-node tree, 4000 times (dense_walk.c)" ;;
    esac
    echo "| $name | $(cell "$p" plain plain) | $(cell "$p" idle) | $(cell "$p" default) | $(first "${RATIO[$p/default]:-}"), ${EV[$p/default]:-} | $(cell "$p" fast) | $(cell "$p" filtered filtered) | $(first "${RATIO[$p/filtered]:-}"), ${EV[$p/filtered]:-} |"
  done
} >"$OUT"
cat "$OUT"
