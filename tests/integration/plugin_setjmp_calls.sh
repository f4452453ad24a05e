#!/bin/sh
# plugin_setjmp_calls.sh - library calls in a function that calls setjmp or
# __builtin_setjmp (GCC's builtins *-chk tests: memcpy (..., strlen (s3) + 1)
# after __builtin_setjmp): the calls that cannot come back through the setjmp
# (leaf functions such as strlen and memcpy) are wrapped and counted, as
# often as callgrind counts them on the plain program and as the program
# makes them (4 passes, a longjmp back after each of the first 3, of 2
# strlen and 1 memcpy in each of the two functions), at -O0 and -O2 with both
# probe forms; the output is the plain program's.
. "$INCLPROF_SRC/tests/lib.sh"
need valgrind python3
PP="$INCLPROF_SRC/tests/programs/plugin"
# totals FILE: the calls of strlen and memcpy the two functions made
totals() {
  python3 "$PP/libcall_counts.py" "$1" with_setjmp with_builtin_setjmp |
    awk '{ for (i = 2; i <= NF; i += 2) { n = $i; f = $(i + 1); sub(/,$/, "", f); c[f] += n } }
      END { printf "strlen=%d memcpy=%d\n", c["strlen"], c["memcpy"] }'
}
for O in -O0 -O2; do
  gcc "$O" "$PP/setjmp_calls.c" -o plain || { fail "$O: build the plain program"; continue; }
  LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file=plain.cg ./plain >plain.out 2>valgrind.err ||
    fail "$O: callgrind on the plain program: $(tail -n 1 valgrind.err)"
  check_eq "$O: callgrind counts the calls the program makes" "strlen=16 memcpy=8" "$(totals plain.cg)"
  for form in stub call; do
    rm -f report.txt
    gcc "$O" -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-probe-form=$form \
      -fplugin-arg-inclprof-report=report.txt "$PP/setjmp_calls.c" -o inst || { fail "$O $form: build"; continue; }
    rm -rf rec
    "$INCLPROF" record -o rec ./inst >inst.out 2>record.err || fail "$O $form: record: $(tail -n 1 record.err)"
    check "$O $form: the same output as the plain program" cmp plain.out inst.out
    "$INCLPROF" export --format csv -o inst.csv rec 2>/dev/null || fail "$O $form: export"
    check_eq "$O $form: strlen and memcpy counted as callgrind counts them" "$(totals plain.cg)" \
      "$(awk -F, '$1 == "strlen" { s += $5 } $1 == "memcpy" { m += $5 } END { printf "strlen=%d memcpy=%d\n", s, m }' inst.csv)"
    check "$O $form: the report counts with_setjmp's wrapped calls" \
      grep -q '^instrumented	with_setjmp	.*callsites=[1-9]' report.txt
  done
done
done_testing
