#!/bin/sh
# runtime_bad_pointers.sh - system calls made with addresses the kernel
# refuses (tests/programs/runtime/bad_pointers.c, as strace's tests make
# them): clone3 with its arguments on an unmapped page or running into one
# through syscall(), execve with an environment holding an unmapped string,
# with no NULL before an unmapped page, or on one.  Recorded, each fails with
# EFAULT as in the plain run, and the program ends as plain (the runtime
# read the clone3 arguments and the environment it carries its settings into
# and died of SIGSEGV).
. "$INCLPROF_SRC/tests/lib.sh"
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o bad_pointers \
  "$INCLPROF_SRC/tests/programs/runtime/bad_pointers.c" || { fail "build bad_pointers"; exit 1; }
./bad_pointers >plain.out 2>&1
check_eq "plain run: every call fails with EFAULT" "0 5" "$? $(grep -c ': -1 EFAULT$' plain.out)"
"$INCLPROF" record -o out -- ./bad_pointers >prof.out 2>prof.err
check_eq "recorded: the program's status" 0 "$?"
check_eq "recorded: the program's output, every call failing with EFAULT" "$(cat plain.out)" "$(cat prof.out)"
check_eq "recorded: one trace" 1 "$(ls out | grep -c '\.ipb$')"
done_testing
