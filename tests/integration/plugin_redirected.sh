#!/bin/sh
# plugin_redirected.sh - a library call that GCC turns into a call of another
# function after the plugin's pass is counted under the function really
# called: at -O1 and above a mempcpy whose result is unused is a call of
# memcpy (it was counted as mempcpy; with the program's own, instrumented
# mempcpy linked in, the call's probes were skipped as a call of an
# instrumented function and memcpy was counted nowhere).  For every function
# of redirected.c, the calls recorded equal callgrind's on the plain program
# (-O0 to -O3, -Os, both probe forms, with and without own_mempcpy.c), and
# the output is the plain program's.
. "$INCLPROF_SRC/tests/lib.sh"
need valgrind python3
PP="$INCLPROF_SRC/tests/programs/plugin"
FNS="copy_unused copy_used string_unused string_used main"
# shellcheck disable=SC2086
counts() { python3 "$PP/libcall_counts.py" "$1" $FNS; }

for O in -O0 -O1 -O2 -O3 -Os; do
  for own in "" own_mempcpy.c; do
    srcs="$PP/redirected.c${own:+ $PP/$own}"
    what="$O${own:+ with $own}"
    # shellcheck disable=SC2086
    gcc "$O" $srcs -o plain || { fail "$what: build the plain program"; continue; }
    LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file=plain.cg ./plain >plain.out 2>valgrind.err ||
      fail "$what: callgrind on the plain program: $(tail -n 1 valgrind.err)"
    counts plain.cg >truth.txt
    # -Os copies inline (rep movsb)
    case $O in -O0) want="10 mempcpy" ;; -Os) want="" ;; *) want="10 memcpy" ;; esac
    check_eq "$what: callgrind on the plain program: copy_unused calls ${want:-nothing}" "copy_unused: $want" \
      "$(grep '^copy_unused:' truth.txt)"
    for form in stub call; do
      # shellcheck disable=SC2086
      gcc "$O" -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-probe-form=$form $srcs -o inst ||
        { fail "$what $form: build"; continue; }
      rm -rf rec
      "$INCLPROF" record -o rec ./inst >inst.out 2>record.err || fail "$what $form: record: $(tail -n 1 record.err)"
      check "$what $form: the same output as the plain program" cmp plain.out inst.out
      "$INCLPROF" export --format callgrind -o inst.cg rec 2>/dev/null || fail "$what $form: export"
      check_eq "$what $form: every function's calls as callgrind counts them" "$(cat truth.txt)" "$(counts inst.cg)"
    done
  done
done
done_testing
