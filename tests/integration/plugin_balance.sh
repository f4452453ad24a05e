#!/bin/sh
# plugin_balance.sh - entries balance exits at -O0/-O2/-O3,
# an inlinable static helper is traced at -O0 and gone at -O2 (trace and
# table), exact call counts, and tail calls keep their exit probe.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"
export LOGRT_TABLE=1

for O in -O0 -O2 -O3; do
  pcc calls "$PP/calls.c" $O || fail "calls.c $O compiles"
  out=$(run log ./calls)
  check_eq "calls $O output unchanged" "153" "$out"
  check "calls $O balanced" balanced log
  check_eq "calls $O: loop entered once" 1 "$(count E loop log)"
  check_eq "calls $O: leaf entered 10 times" 10 "$(count E leaf log)"
  check_eq "calls $O: main exits once" 1 "$(count X main log)"
  check_eq "calls $O: unit registered and unregistered" "U D" "$(awk '$1=="U"||$1=="D"{printf "%s%s", s, $1; s=" "}' log)"
done

pcc calls "$PP/calls.c" -O0
run log ./calls >/dev/null
check_eq "-O0: helper traced (10 calls)" 10 "$(count E helper log)"
check_eq "-O0: helper in the table" 1 "$(awk '$1=="T" && $4=="helper"' log | wc -l)"
pcc calls "$PP/calls.c" -O2
run log ./calls >/dev/null
check_eq "-O2: inlined helper not traced" 0 "$(count E helper log)"
check_eq "-O2: inlined helper not in the table" 0 "$(awk '$1=="T" && $4=="helper"' log | wc -l)"
# fib(6) makes 25 calls; -O2 may inline recursion, but what runs must balance.
check "-O2: fib entered at least once" test "$(count E fib log)" -ge 1

# Tail calls: the plain compiler emits `jmp g`; with the plugin there is none.
gcc -O2 -c "$PP/tail.c" -o plain.o
check "without plugin, -O2 tail-calls g with jmp" sh -c "objdump -d plain.o | grep -Eq 'jmp +[0-9a-f]+ <(g|h)>'"
for O in -O2 -O3; do
  gcc -fplugin="$INCLPROF_PLUGIN" $O -c "$PP/tail.c" -o tail.o
  check_eq "with plugin $O: no jmp to a tail callee" 0 "$(objdump -d tail.o | grep -Ec 'jmp +[0-9a-f]+ <(g|h)>')"
  pcc tail "$PP/tail.c" $O
  run log ./tail >/dev/null
  check "tail $O balanced" balanced log
  check_eq "tail $O nesting" "E main,E direct,E g,X g,X direct,E merged,E g,X g,X merged,E merged,E h,X h,X merged,X main" \
    "$(awk '$1=="E"||$1=="X"{printf "%s%s %s", s, $1, $2; s=","}' log)"
done
done_testing
