#!/bin/sh
# runtime_asan_own_stack.sh - a program built with AddressSanitizer whose
# threads' events are encoded on the runtime's own stack (small_stack.c:
# three threads of 40 000 calls) prints what its plain run prints: the
# switch goes through libc's swapcontext, not the sanitizer's, which warned
# on stderr ("ASan doesn't fully support makecontext/swapcontext").
# timing: each run is killed after 60 s (they take a second).
. "$INCLPROF_SRC/tests/lib.sh"
src="$INCLPROF_SRC/tests/programs/runtime/small_stack.c"
gcc -O1 -pthread -fsanitize=address -o asan_plain "$src" 2>/dev/null || { echo "skip: no AddressSanitizer"; exit 0; }
cc_plugin asan_rec "$src" -O1 -pthread -fsanitize=address || { fail "build small_stack with the plugin and ASan"; exit 1; }
timeout -s KILL 60 ./asan_plain 3 40000 >plain.out 2>plain.err
check_eq "plain run's status" 0 "$?"
INCLPROF_OUTPUT=out timeout -s KILL 60 ./asan_rec 3 40000 >prof.out 2>prof.err
check_eq "the program's status" 0 "$?"
check_eq "the program's output" "$(cat plain.out)" "$(cat prof.out)"
check_eq "the program's stderr" "$(cat plain.err)" "$(cat prof.err)"
"$INCLPROF" info out/*.ipb >info 2>&1
check "the trace ends cleanly at exit" grep -q '^trailer:      clean shutdown, exit reason: exit;' info
done_testing
