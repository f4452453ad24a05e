#!/bin/sh
# plugin_libcalls.sh - library calls as GCC really compiles them: printf
# turned into puts or putchar, fputs into fwrite, malloc and memset into
# calloc, sin and cos into sincos, and memory functions, aggregate copies and
# clears of constant size that stay calls or become moves depending on the
# size and the optimisation level.  For every function of libcalls.c, the
# calls to each callee recorded under `inclprof record` equal the calls
# callgrind counts on the plain program (-O0 to -O3, -Os; stub and call
# probes); the program prints the same with and without the plugin; the
# plugin's report says when it found a call expanded inline.
. "$INCLPROF_SRC/tests/lib.sh"
need valgrind python3
PP="$INCLPROF_SRC/tests/programs/plugin"
FNS="say_puts say_puts_s say_putchar say_fwrite copy_small copy_big clear_big move_big compare_big
copy_struct clear_struct zeroed_block sine_and_cosine"
# shellcheck disable=SC2086
counts() { python3 "$PP/libcall_counts.py" "$1" $FNS; }

for O in -O0 -O1 -O2 -O3 -Os; do
  gcc "$O" "$PP/libcalls.c" -o plain -lm || fail "$O: build the plain program"
  LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file=plain.cg ./plain >plain.out 2>valgrind.err ||
    fail "$O: callgrind on the plain program: $(tail -n 1 valgrind.err)"
  counts plain.cg >truth.txt
  check_eq "$O: callgrind counts 7 puts in say_puts" "say_puts: 7 puts" "$(grep '^say_puts:' truth.txt)"
  for form in stub call; do
    rm -f report.txt
    gcc "$O" -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-probe-form=$form \
      -fplugin-arg-inclprof-report=report.txt "$PP/libcalls.c" -o inst -lm || fail "$O $form: build"
    rm -rf rec
    "$INCLPROF" record -o rec ./inst >inst.out 2>record.err || fail "$O $form: record: $(tail -n 1 record.err)"
    check "$O $form: the same output as the plain program" cmp plain.out inst.out
    "$INCLPROF" export --format callgrind -o inst.cg rec 2>/dev/null || fail "$O $form: export"
    check_eq "$O $form: every function's library calls as callgrind counts them" "$(cat truth.txt)" \
      "$(counts inst.cg)"
    # clear_big's memset of 8 KiB is a call or a few instructions: the report
    # says "expanded" exactly when callgrind saw no call
    expanded=0; [ "$(grep '^clear_big:' truth.txt)" = "clear_big: " ] && expanded=1
    check_eq "$O $form: clear_big's memset reported expanded inline: $expanded" "$expanded" \
      "$(grep -c '^expanded	memset	.*libcalls.c:29	in clear_big: GCC expanded the call inline' report.txt)"
  done
done
done_testing
