#!/bin/sh
# plugin_eh.sh - C++ exceptions through plain, RAII and
# catch/rethrow frames, noexcept and a function-try-block: balanced, and each
# frame's exit comes after its destructors, at -O0, -O2 and -O3.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"

expect="E main|E _Z3ftbi|E _Z7rethrowi|E _Z4raiii|E _Z5plaini|E _Z7throweri|X _Z7throweri|X _Z5plaini|dtor raii|X _Z4raiii|caught in rethrow|X _Z7rethrowi|ftb caught boom|X _Z3ftbi|E _Z2nxi|X _Z2nxi|E _Z7rethrowi|E _Z4raiii|E _Z5plaini|E _Z7throweri|X _Z7throweri|X _Z5plaini|dtor raii|X _Z4raiii|caught in rethrow|X _Z7rethrowi|main caught|X main"
for O in -O0 -O2 -O3; do
  pcxx eh "$PP/eh.cc" $O || fail "eh.cc $O compiles"
  # The log goes to stderr, interleaved with the program's own stderr lines.
  ./eh 2>log; rc=$?
  check_eq "eh $O exits normally" 0 "$rc"
  grep -v '^[CRIJ] ' log | grep -Ev '^[UD] ' > frames
  check "eh $O balanced" balanced frames
  got=$(grep -Ev '^E _ZN5Guard|^X _ZN5Guard' frames | paste -sd'|' -)
  check_eq "eh $O order (exits after destructors)" "$expect" "$got"
  check_eq "eh $O: throw is a call-site probe without return" "2 0" \
    "$(count C __cxa_throw log) $(count R __cxa_throw log)"
done
done_testing
