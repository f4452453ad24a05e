#!/bin/sh
# runtime_fork_longjmp.sh - a fork child that siglongjmps to a sigsetjmp its
# parent made before the fork (tests/programs/runtime/fork_longjmp.c: three
# frames of fail() jumped out of, to serve(), which the child's trace does
# not show open): the landing closes the child's frames where it lands.
# Against the program's own clock, in the child's trace (--raw: with the
# probes' cost, which the program's clock saw too): fail's Elapsed Inclusive
# is its span up to the landing and linger's (after it) its own, linger is
# no callee of fail, and no exit is unmatched (the exits of serve and main,
# opened by the parent, count as the fork's).  Before, fail stayed open to
# the child's exit (300 ms more) and those two exits were "unmatched".  The
# same rule in `record --aggregate`'s fold: fail's time at most its span,
# and the same counts of exits.
. "$INCLPROF_SRC/tests/lib.sh"
check "compile the program" cc_plugin fl -O1 "$INCLPROF_SRC/tests/programs/runtime/fork_longjmp.c"

# child_trace DIR: the trace of the fork child in DIR
child_trace() {
  for f in "$1"/*.ipb; do
    "$INCLPROF" info "$f" 2>/dev/null | grep -q '^process: .*fork child of' && echo "$f"
  done
}
# value CSV FUNCTION COLUMN: that column of the function's row
value() {
  python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["function"] == sys.argv[2]: print(r[sys.argv[3]])' "$1" "$2" "$3"
}
# near WHAT GOT WANT: within 2 % and 0.5 ms of the program's measure
near() {
  check "$1 (${2:-none} ns against the program's ${3:-none} ns)" \
    awk -v g="${2:-0}" -v w="${3:-1}" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g > 0 && d <= 0.02 * w + 500000) }'
}

"$INCLPROF" record -o tr -- ./fl >out.txt 2>rec.err
check_eq "the program's status" 0 "$?"
fail_ns=$(sed -n 's/^child fail_ns \([0-9]*\) .*/\1/p' out.txt)
linger_ns=$(sed -n 's/.* linger_ns \([0-9]*\)$/\1/p' out.txt)
child=$(child_trace tr)
check "the child has a trace" test -n "$child"
"$INCLPROF" export --raw --format csv -o raw.csv "$child" 2>/dev/null
near "trace: fail's Elapsed Inclusive is its span to the landing" "$(value raw.csv fail elapsed_inclusive_ns)" "$fail_ns"
near "trace: linger's Elapsed Inclusive is its own" "$(value raw.csv linger elapsed_inclusive_ns)" "$linger_ns"
check_eq "trace: fail's calls" 4 "$(value raw.csv fail calls)"
"$INCLPROF" report "$child" >report.txt 2>&1
check "trace: no exit unmatched" grep -q ', 0 unmatched exits ignored)' report.txt
check "trace: the exits of serve and main count as the fork's" grep -q '^forks: *2 exit(s) in fork children' report.txt
"$INCLPROF" report --tree "$child" >tree.txt 2>&1
check "trace: linger is in the child's tree" grep -q ' linger$' tree.txt
check "trace: ... at its root, not under fail" sh -c "! grep -q '    linger\$' tree.txt"

"$INCLPROF" record --aggregate -o ag -- ./fl >agout.txt 2>ag.err
check_eq "--aggregate: the program's status" 0 "$?"
ag_fail_ns=$(sed -n 's/^child fail_ns \([0-9]*\) .*/\1/p' agout.txt)
child=$(child_trace ag)
"$INCLPROF" export --format csv -o ag.csv "$child" 2>/dev/null
got=$(value ag.csv fail elapsed_inclusive_ns)
check "--aggregate: fail's Elapsed Inclusive at most its span (${got:-none} ns, the program's $ag_fail_ns ns)" \
  awk -v g="${got:-0}" -v w="${ag_fail_ns:-0}" 'BEGIN { exit !(g > 0 && g <= w + 500000) }'
check_eq "--aggregate: fail's calls" 4 "$(value ag.csv fail calls)"
"$INCLPROF" report "$child" >agreport.txt 2>&1
check "--aggregate: no exit unmatched" grep -q ', 0 unmatched exits ignored)' agreport.txt
check "--aggregate: the exits of serve and main count as the fork's" grep -q '^forks: *2 exit(s) in fork children' agreport.txt
done_testing
