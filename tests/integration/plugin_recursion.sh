#!/bin/sh
# plugin_recursion.sh - recursion is counted as written: GCC neither turns a
# self-recursion into a loop (tail-recursion elimination, in "tailr" and
# "tailc") nor unrolls or peels it by inlining, so every recursive call of an
# instrumented function is one call in the profile, at every -O level;
# tail-recursion=loop gives GCC's loops back.
. "$INCLPROF_SRC/tests/lib.sh"
PP="$INCLPROF_SRC/tests/programs/plugin"
# counts: "name=calls" of the recursive functions in inclprof.csv
counts() {
  awk -F, '$1 ~ /^(depth|sum|is_even|is_odd)$/ { c[$1] = $5 }
    END { printf "depth=%s sum=%s is_even=%s is_odd=%s", c["depth"], c["sum"], c["is_even"], c["is_odd"] }' inclprof.csv
}
# profile OPT [KEYS]: build recursion.c with the plugin, record, export CSV
profile() {
  o=$1; shift
  rm -rf inclprof.data inclprof.csv
  gcc "$o" -fplugin="$INCLPROF_PLUGIN" "$@" "$PP/recursion.c" -o rec || return 1
  [ "$(./rec)" = "30 465 1 1" ] || return 1
  "$INCLPROF" record ./rec >/dev/null 2>&1 && "$INCLPROF" export --format csv -o inclprof.csv 2>/dev/null
}
# depth(30) and sum(30, 0): 1 call from main + 30 recursive calls; is_even(30)
# and is_odd(31) call each other down to 0: 16 + 15 and 16 + 16 calls.
for o in -O0 -O1 -O2 -O3 -Os; do
  profile "$o" || fail "$o: build and record recursion.c"
  check_eq "$o: one call per recursive call" "depth=31 sum=31 is_even=32 is_odd=31" "$(counts)"
done
profile -O2 -fplugin-arg-inclprof-tail-recursion=loop || fail "tail-recursion=loop: build and record"
check_eq "tail-recursion=loop: GCC's loops (depth and sum inlined into main)" \
  "depth= sum= is_even=32 is_odd=31" "$(counts)"
check "tail-recursion=keep is the default and accepted" \
  gcc -O2 -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-tail-recursion=keep -c "$PP/recursion.c" -o k.o
gcc -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-tail-recursion=flat -c "$PP/recursion.c" -o bad.o 2>err.txt
check "a bad tail-recursion value names the choices" \
  grep -q "inclprof: argument: bad value 'flat' for tail-recursion (expected keep or loop)" err.txt
done_testing
