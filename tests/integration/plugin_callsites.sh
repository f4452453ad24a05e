#!/bin/sh
# plugin_callsites.sh - call-site probes around write, printf,
# an indirect call (with its target), abort (no "after" probe), a throwing
# call; none in a function calling setjmp, none for inline builtins.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"

for O in -O0 -O2; do
  pcc cs "$PP/callsites.c" $O || fail "callsites.c $O compiles"
  run log ./cs >/dev/null
  check "$O balanced" balanced log
  check_eq "$O write wrapped once" "1 1" "$(count C write log) $(count R write log)"
  check_eq "$O indirect call names its target" "I target|E target|X target|J target" \
    "$(grep -E '^(I|J) |^[EX] target$' log | paste -sd'|' -)"
  check_eq "$O no call-site probe inside the setjmp function" "" \
    "$(awk '/^E with_setjmp$/{f=1; next} /^X with_setjmp$/{f=0} f && /^[CR] /' log)"
  check_eq "$O no probes for inline builtins" "0" "$(grep -Ec '^C (memcpy|__builtin|__popcount)' log)"
  # printf may become puts at -O2; either way calls and returns pair up.
  check_eq "$O every C has its R" "$(grep -c '^C ' log)" "$(grep -c '^R ' log)"
  run log ./cs abort >/dev/null 2>&1
  check_eq "$O abort: last event is the call, no return" "C abort" "$(tail -n 1 log)"
done
gcc -fplugin="$INCLPROF_PLUGIN" -O2 -fdump-tree-optimized -c "$PP/callsites.c" -o cs.o
check_eq "setjmp function: only its entry, exit and landing probes in the dump" 3 \
  "$(awk '/^;; Function with_setjmp/{f=1} /^;; Function /&&!/with_setjmp/{f=0} f' ./*.optimized | grep -c '__inclprof_tu.hooks')"

g++ -O2 -c "$PP/ext_throw.cc" -o ext_throw.o
for O in -O0 -O2; do
  pcxx tc "$PP/throwcall.cc" ext_throw.o $O || fail "throwcall.cc $O"
  run log ./tc; rc=$?
  check_eq "$O throwing call program result" 0 "$rc"
  check "$O throwing call balanced" balanced log
  check_eq "$O returning call wrapped, throwing call has no return probe" \
    "E caller|C _Z9ext_throwi|R _Z9ext_throwi|X caller|E caller|C _Z9ext_throwi|X caller" \
    "$(grep -E '^[EX] _Z6calleri|^[CR] _Z9ext_throwi' log | sed 's/_Z6calleri/caller/' | paste -sd'|' -)"
done
done_testing
