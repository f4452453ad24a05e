#!/bin/sh
# cross_aarch64.sh - recording on AArch64 under qemu-user: the plugin built
# for the AArch64 cross compiler of the host's GCC version (probes are calls
# there), the runtime cross-compiled against the arm64 builds of its
# libraries (scripts/arm64-libs.sh, unpacked into $INCLPROF_LIBDIR/aarch64),
# tests/programs/plugin/calls.c run under qemu-aarch64 and its trace
# converted by the host's inclprof.  Its calls per function and its call tree
# (every call path with its calls) equal those of the same program built and
# recorded on the host: main 1, loop 1, leaf 10 (under loop), fib 25 (1, 2, 4,
# 8, 8, 2 down its recursion), printf 1; and those of
# tests/programs/convert/sym_main.c, whose indirect calls to a static function
# and an assembly routine (10 each) are named from the AArch64 executable's
# symbol table.  Under qemu-user only
# INCLPROF_TRANSITIONS=none detects what it is asked to: qemu-user has no
# perf_event_open, so pmu and kevents record as none, the trace header
# saying why.  The cross build is kept in $INCLPROF_LIBDIR/aarch64 (about
# 30 s the first time on 2 cores, with the 3 MB of arm64 packages; 2 to 6 s
# after).
. "$INCLPROF_SRC/tests/lib.sh"
PP="$INCLPROF_SRC/tests/programs/plugin"
v=$(gcc -dumpversion | cut -d. -f1)
X=aarch64-linux-gnu-gcc-$v
need "$X" qemu-aarch64 "g++-$v" "gcc-$v"
[ -d "$($X -print-file-name=plugin)/include" ] ||
  { fail "the plugin headers of $X are not installed: run scripts/deps.sh test as root (make check does), then rerun"; exit 1; }

A=$(cd "$INCLPROF_LIBDIR" && pwd)/aarch64
SYS=$A/libs/root
LIBS=$SYS/usr/lib/aarch64-linux-gnu:$SYS/lib/aarch64-linux-gnu
sh "$INCLPROF_SRC/scripts/arm64-libs.sh" "$A/libs" >arm64-libs.log 2>&1 ||
  { fail "the arm64 libraries: $(tail -n1 arm64-libs.log)"; exit 1; }
# The host's packages were checked by the host build (no deps.sh build for
# this build directory); the sub-make does not take make check's jobserver.
mkdir -p "$A"
[ -f "$A/.deps-build" ] || touch "$A/.deps-build"
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 -C "$INCLPROF_SRC" B="$A" GCC="$X" \
  PLUGIN_GCC="$X" PLUGIN_CXX="g++-$v" PLUGIN_CC="gcc-$v" PB_CFLAGS="-I$SYS/usr/include" \
  PB_LIBS="-L$SYS/usr/lib/aarch64-linux-gnu -Wl,-rpath,$LIBS -lprotobuf-c" \
  "$A/inclprof.so" "$A/libinclprof.so" >cross-build.log 2>&1; then
  fail "the plugin and the runtime cross-build for AArch64: $(grep -m1 -E 'error|Error' cross-build.log || tail -n1 cross-build.log)"
  exit 1
fi
ok "the plugin builds for $X, the runtime cross-compiles"

$X -O2 -fplugin="$A/inclprof.so" "$PP/calls.c" -o calls_a64 -L"$A" -Wl,-rpath,"$A" \
  -Wl,-rpath-link,"$LIBS" -Wl,--push-state,--no-as-needed -linclprof -Wl,--pop-state ||
  { fail "calls.c builds with $X and the plugin"; exit 1; }
cc_plugin calls_host -O2 "$PP/calls.c" || { fail "calls.c builds on the host"; exit 1; }

# run MODE PROGRAM...: record into trace-MODE with INCLPROF_TRANSITIONS=MODE
run() {
  m=$1; shift
  INCLPROF_OUTPUT=trace-$m INCLPROF_TRANSITIONS=$m "$@" >"out-$m.txt" 2>"err-$m.txt"
}
for m in none pmu kevents; do
  run "$m" qemu-aarch64 -L /usr/aarch64-linux-gnu ./calls_a64
  check_eq "AArch64, transitions=$m: runs to the end with the runtime, its output" "0 153" "$? $(cat "out-$m.txt")"
done
mv trace-none trace-a64
INCLPROF_OUTPUT=trace-host INCLPROF_TRANSITIONS=none ./calls_host >/dev/null

# calls DIR: "FUNCTION CALLS" per function, sorted
calls() { "$INCLPROF" export -f csv -o - "$1" 2>/dev/null | awk -F, 'NR > 1 { print $1, $5 }' | sort; }
# tree DIR: every call path of report --tree as "a;b;c CALLS", sorted
# (sibling order follows the times, which differ between machines)
tree() {
  "$INCLPROF" report --tree "$1" 2>/dev/null | awk '
    /Call path$/ { col = index($0, "Call path"); next }
    !col || /^thread / || NF == 0 { next }
    { name = substr($0, col); d = match(name, /[^ ]/); d = (d - 1) / 2
      p[d] = substr(name, 2 * d + 1); s = p[0]
      for (i = 1; i <= d; i++) s = s ";" p[i]
      print s, $1 }' | sort
}
expect_calls="fib 25
leaf 10
loop 1
main 1
printf 1"
expect_tree="main 1
main;fib 1
main;fib;fib 2
main;fib;fib;fib 4
main;fib;fib;fib;fib 8
main;fib;fib;fib;fib;fib 8
main;fib;fib;fib;fib;fib;fib 2
main;loop 1
main;loop;leaf 10
main;printf 1"
check_eq "AArch64: calls per function" "$expect_calls" "$(calls trace-a64)"
check_eq "AArch64: the call tree" "$expect_tree" "$(tree trace-a64)"
check_eq "x86-64 host: calls per function, the same" "$(calls trace-a64)" "$(calls trace-host)"
check_eq "x86-64 host: the call tree, the same" "$(tree trace-a64)" "$(tree trace-host)"
check "AArch64: no repairs" sh -c "'$INCLPROF' report trace-a64 2>&1 | grep -q '^repairs: *0 exits reconciled (0 frames skipped by an exit or a longjmp, 0 open at thread end, 0 unmatched exits ignored)'"
check "AArch64: the clock is the virtual counter" sh -c "'$INCLPROF' info trace-a64 2>&1 | grep -qi cntvct"

# Indirect calls (call_indirect/ret_indirect hooks) to a static function and
# an assembly routine, named by the host's converter from the AArch64
# executable's symbol table.
P="$INCLPROF_SRC/tests/programs/convert"
mkdir a64 host
if ! { (cd a64 && $X -O2 -c "$P/sym_targets.c" "$P/sym_asm.S") &&
  $X -O2 -fplugin="$A/inclprof.so" "$P/sym_main.c" a64/sym_targets.o a64/sym_asm.o -o sym_a64 -L"$A" \
    -Wl,-rpath,"$A" -Wl,-rpath-link,"$LIBS" -Wl,--push-state,--no-as-needed -linclprof -Wl,--pop-state; }; then
  fail "sym_main.c builds with $X and the plugin"
fi
if ! { (cd host && gcc -O2 -c "$P/sym_targets.c" "$P/sym_asm.S") &&
  cc_plugin sym_host -O2 "$P/sym_main.c" host/sym_targets.o host/sym_asm.o; }; then
  fail "sym_main.c builds on the host"
fi
INCLPROF_OUTPUT=sym-a64 INCLPROF_TRANSITIONS=none qemu-aarch64 -L /usr/aarch64-linux-gnu ./sym_a64 >sym-a64.txt
check_eq "AArch64, indirect calls: runs to the end with the runtime, its output" "0 360" "$? $(cat sym-a64.txt)"
INCLPROF_OUTPUT=sym-host INCLPROF_TRANSITIONS=none ./sym_host >/dev/null
check_eq "AArch64, indirect calls: calls per function, the targets named from the symbol table" \
  "asm_add3 10
get_asm 10
get_static 10
hidden_square 10
main 1
printf 1
through 20" "$(calls sym-a64)"
check_eq "x86-64 host, indirect calls: calls per function, the same" "$(calls sym-a64)" "$(calls sym-host)"
check_eq "x86-64 host, indirect calls: the call tree, the same" "$(tree sym-a64)" "$(tree sym-host)"

for m in pmu kevents; do
  check_eq "AArch64, transitions=$m: the same calls per function" "$expect_calls" "$(calls "trace-$m")"
  check "AArch64, transitions=$m: recorded as none, the header saying why ($m: ...)" sh -c \
    "'$INCLPROF' info trace-$m 2>&1 | grep -A1 '^transitions: *none' | grep -q 'why: $m: '"
done
done_testing
