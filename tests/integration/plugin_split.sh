#!/bin/sh
# plugin_split.sh - a function GCC would split (ipa-split: an inlinable head
# and a .part.N rest) keeps one row with its exact call count, whether its
# body is reached from an inlined head or through its out-of-line head: the
# plugin switches function splitting off for instrumented functions.
# partial-inlining=yes lets GCC split; the part is then skipped, with that
# reason in the report.
. "$INCLPROF_SRC/tests/lib.sh"
PP="$INCLPROF_SRC/tests/programs/plugin"
calls() { awk -F, -v f="$1" '$1 == f { print $5 }' inclprof.csv; }
# profile OPT [KEYS]: build split.c with the plugin, record, export CSV
profile() {
  o=$1; shift
  rm -rf inclprof.data inclprof.csv report.txt
  gcc "$o" -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-report=report.txt "$@" "$PP/split.c" -o split &&
    ./split >/dev/null && "$INCLPROF" record ./split >/dev/null 2>&1 &&
    "$INCLPROF" export --format csv -o inclprof.csv 2>/dev/null
}
for o in -O2 -O3; do
  gcc "$o" "$PP/split.c" -o plain
  check "$o: without the plugin GCC splits process" sh -c "nm plain | grep -q 'process\.part\.'"
  profile "$o" || fail "$o: build and record split.c"
  check_eq "$o: process has one row, 1000 direct + 10 indirect calls" "1010" "$(calls process)"
  check "$o: no split part in the binary" sh -c "! nm split | grep -q 'part\.'"
  check_eq "$o: the report has process instrumented, nothing skipped" "1 0" \
    "$(grep -c '^instrumented	process	' report.txt) $(grep -c '^skipped	process' report.txt)"
  profile "$o" -fplugin-arg-inclprof-partial-inlining=yes || fail "$o: partial-inlining=yes: build and record"
  check_eq "$o: partial-inlining=yes: only the 10 calls through the out-of-line head" "10" "$(calls process)"
  check "$o: partial-inlining=yes: the report names the skipped part" \
    grep -q "^skipped	process	.*split.c:[0-9]*	ipa-split part of a larger function (partial-inlining=yes)$" report.txt
done
done_testing
