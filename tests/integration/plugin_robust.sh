#!/bin/sh
# plugin_robust.sh - a large C++ unit (<regex>, <map>) with
# every function instrumented compiles at -O0..-O3 with -g -fPIC
# -fnon-call-exceptions and runs balanced; the optimized GIMPLE has one entry
# probe per function, an exit probe before every return and before every
# exception resume; LTO with the plugin at link time, without it (warning,
# nothing instrumented) and with fat objects.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"
export LOGRT_TABLE=1

for O in -O0 -O1 -O2 -O3; do
  pcxx big "$PP/big.cc" $O -g -fPIC -fnon-call-exceptions \
    -fplugin-arg-inclprof-system-headers=yes -fplugin-arg-inclprof-callsites=all 2>err.txt
  check "big.cc $O compiles (no internal compiler error)" test -x big -a ! -s err.txt
  out=$(run log ./big)
  check_eq "big.cc $O runs correctly" "3 2 7 2" "$out"
  grep -E '^[EX] ' log >frames
  check "big.cc $O balanced over $(grep -c '^E ' frames) entries" balanced frames
  rm -f big
done

# Per function in the optimized dump: enters, returns, returns right after an
# exit probe, resumes, resumes right after an exit probe (and the exception
# pointer load).  A probe is either `_N = __inclprof_tu.hooks.KIND;`, a null
# test, and `_N (&__inclprof_fn.M);` in a block of its own, or (x86-64) one
# `__asm__ __volatile__("cmpq $0, %c0(%%rip) ...` over several lines whose
# operands are `"i" &__inclprof_tu.hooks.KIND, "i" &__inclprof_fn.M` per probe
# (adjacent probes share one); p1 and p2 are the kinds of the last two
# statements ("stmt" for anything but a probe, an asm counting as its last).
probe_summary() {
  awk '/^;; Function /{ fn = $3 }
       /^  __asm__ __volatile__\("cmpq/ { inasm = 1; last = "stmt"; next }
       inasm {
         line = $0
         while (match(line, /"i" &__inclprof_tu\.hooks\.[a-z_]+/)) {
           k = substr(line, RSTART, RLENGTH); sub(/.*hooks\./, "", k)
           if (k == "enter") enter[fn]++
           last = k; line = substr(line, RSTART + RLENGTH)
         }
         if ($0 ~ /\);$/) { inasm = 0; p2 = p1; p1 = last }
         next
       }
       /= __inclprof_tu\.hooks\.[a-z_]+;$/ { k = $3; sub(/.*hooks\./, "", k); sub(/;$/, "", k); hook[$1] = k }
       /__inclprof_tu\.hooks\.enter;/ { enter[fn]++ }
       /^  return/ { ret[fn]++; if (p1 == "exit") retx[fn]++ }
       /__builtin_unwind_resume/ { res[fn]++; if (p2 == "exit") resx[fn]++ }
       /^  [^ <]/ && !/^  (if |else)/ {
         p2 = p1; p1 = ($1 in hook && $2 ~ /^\(&__inclprof_fn/) ? hook[$1] : "stmt" }
       END { for (f in enter) printf "%s %d %d %d %d %d\n", f, enter[f], ret[f], retx[f], res[f], resx[f] }' "$@" | sort
}
for O in -O0 -O2 -O3; do
  rm -f ./*.optimized
  g++ -fplugin="$INCLPROF_PLUGIN" $O -fdump-tree-optimized -c "$PP/eh.cc" -o eh.o
  probe_summary ./*.optimized >summary
  n=7; [ "$O" = -O0 ] && n=9   # Guard's constructor and destructor stay out of line
  check_eq "$O dump: $n instrumented functions" $n "$(wc -l <summary)"
  check_eq "$O dump: exactly one entry probe each" "" "$(awk '$2 != 1' summary)"
  check_eq "$O dump: an exit probe before every return" "" "$(awk '$3 != $4' summary)"
  check_eq "$O dump: an exit probe before every exception resume" "" "$(awk '$5 != $6' summary)"
  check_eq "$O dump: every hook is tested against null before its call" "0 unguarded of $(grep -c '= __inclprof_tu\.hooks\.' ./*.optimized)" \
    "$(awk '/= __inclprof_tu\.hooks\.[a-z_]+;$/ { n++; pending[$1] = 1 }
            /^  if \(_[0-9]+ != 0B\)$/ { v = $2; sub(/^\(/, "", v); if (v in pending) { delete pending[v]; t++ } }
            END { printf "%d unguarded of %d", n - t, n }' ./*.optimized)"
  check_eq "$O dump: every asm probe tests its first hook and jumps to its stub" "$(grep -c '^  __asm__ __volatile__("cmpq' ./*.optimized)" \
    "$(grep -A1 '^  __asm__ __volatile__("cmpq	\$0, %c0(%%rip)$' ./*.optimized | grep -c '^	jne	\.Lipp%=$')"
  check "$O dump: raii has an exception exit (landing pad)" awk '$1=="raii" && $5 >= 1 {f=1} END{exit !f}' summary
  check_eq "$O dump: noexcept nx has no landing pad" "0" "$(awk '$1=="nx"{print $5+0}' summary)"
done

# LTO.  Reference ids from a normal build.
pcc same "$PP/same1.c" "$PP/same2.c" -O2
run log ./same
ids() { sed -n 's/^T //p' log | awk -F'\t' '$2 % 2 == 1 {print $1, $3, $5}' | sort -u; }
ref=$(ids)
gcc -fplugin="$INCLPROF_PLUGIN" -O2 -flto -c "$PP/same1.c" -o s1.o 2>warn.txt
gcc -fplugin="$INCLPROF_PLUGIN" -O2 -flto -c "$PP/same2.c" -o s2.o 2>/dev/null
check "slim LTO objects: no compile-time warning" test ! -s warn.txt
# shellcheck disable=SC2086
gcc -O2 -flto s1.o s2.o -o lto_noplugin $LOGRT_LINK
run log ./lto_noplugin; : >>log
check_eq "LTO without the plugin at link time: nothing instrumented" 0 "$(grep -c '^E ' log)"
# shellcheck disable=SC2086
gcc -fplugin="$INCLPROF_PLUGIN" -O2 -flto s1.o s2.o -o lto_plugin $LOGRT_LINK
run log ./lto_plugin
check "LTO with the plugin at link time: balanced" balanced log
check_eq "LTO with the plugin at link time: both helpers traced" 2 "$(count E helper log)"
check_eq "LTO ids match the non-LTO build (for the functions LTO kept)" "" \
  "$(ids | while read -r id name file; do echo "$ref" | grep -qx "$id $name $file" || echo "$id $name $file"; done)"
check_eq "LTO demangled/printable names carry no clone suffix" "" "$(sed -n 's/^T //p' log | awk -F'\t' '$4 ~ /\./')"
gcc -fplugin="$INCLPROF_PLUGIN" -O2 -flto -ffat-lto-objects -c "$PP/same1.c" -o f1.o 2>warn.txt
gcc -fplugin="$INCLPROF_PLUGIN" -O2 -flto -ffat-lto-objects -c "$PP/same2.c" -o f2.o
check "fat LTO objects: no warning" test ! -s warn.txt
# shellcheck disable=SC2086
gcc -O2 -fno-lto f1.o f2.o -o fat $LOGRT_LINK
run log ./fat
check "fat objects linked without LTO: balanced" balanced log
check_eq "fat objects linked without LTO: ids as in the normal build" "$ref" "$(ids)"
done_testing
