#!/bin/sh
# plugin_cross_unit.sh - a call into another translation unit costs the
# callee's entry and exit probes only: the call-site probes the plugin put
# around it (it cannot see the callee is instrumented) record nothing once the
# runtime has seen both units, whichever registers first; the values are
# those of one frame per call.  A real library call keeps its call-site probes.
# Those probes skip the trampoline too (their stub, or the trampoline's loop
# for a run of adjacent probes, reads the callee's mark): under callgrind the
# runtime's call and ret hooks are reached for printf only, and the
# single-probe trampoline once per entry or exit probe.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/runtime/build.sh"
P="$INCLPROF_SRC/tests/programs/plugin"
rt_build || { fail "build the trace dumper"; exit 1; }
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -c "$P/xunit_main.c" -o main.o &&
  gcc -O2 -fplugin="$INCLPROF_PLUGIN" -c "$P/xunit_lib.c" -o lib.o ||
  { fail "compile with the plugin"; exit 1; }
for order in "main.o lib.o" "lib.o main.o"; do
  # shellcheck disable=SC2086
  gcc -o prog $order
  rm -rf data
  "$INCLPROF" record -o data ./prog >/dev/null 2>&1
  f=$(rt_only_trace data)
  gid() { ./trace_dump "$f" | sed -n "s/^function gid=\([0-9]*\) name=$1 .*/\1/p" | head -1; }
  scale=$(gid scale) printf_gid=$(gid printf)
  # events per kind (ENTER 0, EXIT 1, CALL 2, RET 3) naming scale / printf
  kinds() { ./trace_dump -e "$f" | awk -v g="$1" '$1 == "ev" && $6 == g { k[$5]++ }
    END { printf "%d %d %d %d", k[0], k[1], k[2], k[3] }'; }
  check_eq "link $order: scale entered and left 1000 times, no call-site events" \
    "1000 1000 0 0" "$(kinds "$scale")"
  check_eq "link $order: printf keeps its call-site probes" "0 0 1 1" "$(kinds "$printf_gid")"
  "$INCLPROF" export --format csv -o out.csv data 2>/dev/null
  check_eq "link $order: scale has 1000 calls, one row" "1000" \
    "$(awk -F, '$1 == "scale" { print $5 }' out.csv)"
  "$INCLPROF" report data >report.txt 2>&1
  check "link $order: no repairs" grep -q '^repairs: *0 exits reconciled' report.txt
done

need valgrind
rm -rf data
INCLPROF_OUTPUT=data LD_PRELOAD="$INCLPROF_LIBDIR/libinclprof.so" \
  valgrind --tool=callgrind --callgrind-out-file=cg.out ./prog >/dev/null 2>cg.err
check_eq "under callgrind: exit status" 0 "$?"
# calls FUNCTION_REGEX: the calls callgrind counted of the functions so named
calls() {
  awk -v re="$1" '/^c?fn=\([0-9]+\) / { id = $1; sub(/^c?fn=/, "", id); name = $0; sub(/^[^ ]* /, "", name); if (name ~ re) want[id] = 1 }
    /^cfn=/ { cur = $1; sub(/^cfn=/, "", cur) }
    /^calls=/ { if (cur in want) { split($1, a, "="); s += a[2] } cur = "" }
    END { print s + 0 }' cg.out
}
check_eq "the runtime's call hook: printf's call only" 1 "$(calls '^call_(kev|pmu|none)(_fast)?$')"
check_eq "the runtime's ret hook: printf's return only" 1 "$(calls '^ret_(kev|pmu|none)(_fast)?$')"
check_eq "the entry and exit hooks: main, 1000 scale, 1000 offset" 4002 \
  "$(calls '^(enter|exit)_(kev|pmu|none)(_fast)?$')"
done_testing
