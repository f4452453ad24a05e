#!/bin/sh
# plugin_unwind.sh - the x86-64 probe form (a test and an out-of-line stub):
# an unwinder started inside any kind of probe (entry, exit, call-site,
# indirect, adjacent ones sharing a stub) walks through the trampoline into
# the instrumented function and its callers, at -O0..-O3, PIE or not, and in
# the call form (-fnon-call-exceptions, -masm=intel, probe-form=call);
# arguments and results (int, double, six arguments) survive the probes; a
# small leaf function keeps no frame; without a runtime the program runs as
# built plainly.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"
[ "$(uname -m)" = x86_64 ] || { ok "not x86-64: probes are calls here (plugin_robust.sh)"; done_testing; exit; }
gcc -shared -fPIC -I"$INCLPROF_SRC/include/inclprof" -o libbtrt.so "$PP/btrt.c" -ldl || { fail "btrt.c builds"; exit 1; }
BT_LINK="-rdynamic -L$T_DIR -Wl,--push-state,--no-as-needed -lbtrt -Wl,--pop-state -Wl,-rpath,$T_DIR"

cat >expected <<'OUT'
E main: main _start
E mid: mid main _start
E leaf: leaf mid main _start
X leaf: leaf mid main _start
E leaf: leaf mid main _start
X leaf: leaf mid main _start
I add1: mid main _start
E add1: add1 mid main _start
X add1: add1 mid main _start
J add1: mid main _start
X mid: mid main _start
C puts: main _start
one
R puts: main _start
C puts: main _start
two
R puts: main _start
E six: six main _start
X six: six main _start
E half: half main _start
X half: half main _start
C printf: main _start
39 2.5 -19
R printf: main _start
X main: main _start
OUT
gcc -O2 "$PP/unwind.c" -o plain
check_eq "plain build's output" "one two 39 2.5 -19" "$(./plain | tr '\n' ' ' | sed 's/ $//')"

for flags in -O0 -O1 -O2 -O3 "-O2 -fno-pie -no-pie" "-O2 -fnon-call-exceptions" "-O2 -masm=intel" \
  "-O2 -fplugin-arg-inclprof-probe-form=call"; do
  # shellcheck disable=SC2086
  gcc -fplugin="$INCLPROF_PLUGIN" $flags "$PP/unwind.c" -o uw $BT_LINK || { fail "$flags: unwind.c builds"; continue; }
  ./uw >out 2>&1
  check_eq "$flags: every probe unwinds into its function and callers; values survive" "" "$(diff expected out)"
done

# The x86-64 form: the leaf is its two tests around the plain body, no frame.
gcc -fplugin="$INCLPROF_PLUGIN" -O2 "$PP/unwind.c" -o uw
check_eq "without a runtime the output is the plain build's" "$(./plain)" "$(./uw)"
objdump -d --no-show-raw-insn uw | awk '/<leaf>:/{f=1; next} f && /^$/{exit} f' >leaf.s
check_eq "leaf: two tests of a hook" 2 "$(grep -c 'cmpq *\$0x0,0x[0-9a-f]*(%rip)' leaf.s)"
check_eq "leaf: no saved register, no frame, no call" "" "$(grep -E 'push|pop|%rsp|call' leaf.s)"
objdump -d --no-show-raw-insn uw | awk '/<half>:/{f=1; next} f && /^$/{exit} f' >half.s
check "half: its double is kept in a register across the probes, no frame" \
  test -z "$(grep -E 'push|pop|sub .*%rsp|call' half.s)"
# -fnon-call-exceptions and probe-form=call keep the call form.
for flags in -fnon-call-exceptions -fplugin-arg-inclprof-probe-form=call; do
  gcc -fplugin="$INCLPROF_PLUGIN" -O2 $flags "$PP/unwind.c" -o uwc
  check "$flags: the probe is an indirect call" sh -c \
    "objdump -d --no-show-raw-insn uwc | awk '/<leaf>:/{f=1; next} f && /^\$/{exit} f' | grep -q 'call *\\*%rax'"
done

# Descriptor flags (logrt's table: id, flags, name...): 0x10 marks stubs.
stub_flags() { LOGRT_TABLE=1 run log "$1" >/dev/null; awk -F'\t' '$1 ~ /^T / && $3 == "leaf" {print $2}' log; }
pcc uws "$PP/unwind.c" -O2
check_eq "stub form: leaf's flags are INSTRUMENTED | STUB_PROBES" 17 "$(stub_flags ./uws)"
pcc uwl "$PP/unwind.c" -O2 -fplugin-arg-inclprof-probe-form=call
check_eq "call form: leaf's flags are INSTRUMENTED" 1 "$(stub_flags ./uwl)"
done_testing
