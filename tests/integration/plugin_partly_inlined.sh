#!/bin/sh
# plugin_partly_inlined.sh - a function GCC inlines at some call sites and
# keeps out of line at others (partly.c: step() inlined into direct_loop,
# called through a pointer from pointer_loop): its row counts the 1000 calls
# of its out-of-line copy and says where the others went (the flat table's
# note, within the width, and once for two executables that inlined it
# alike; report --missing, the header's no-row line, the plugin's report);
# with noinline=step (an argument, or a filter file) step is inlined nowhere
# and its row counts all 2000 calls, as the program counts them itself.
. "$INCLPROF_SRC/tests/lib.sh"
PP="$INCLPROF_SRC/tests/programs/plugin"
calls() { awk -F, -v f="$1" '$1 == f { print $5 }' rec.csv; }

gcc -O2 -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-report=report.txt "$PP/partly.c" -o partly ||
  fail "build partly.c"
"$INCLPROF" record -o rec ./partly >out.txt 2>/dev/null || fail "record partly"
check "the program counts 2000 calls of step" grep -q '^steps 2000 ' out.txt
"$INCLPROF" export --format csv -o rec.csv rec 2>/dev/null
check_eq "-O2: step's row has the 1000 calls of its out-of-line copy" 1000 "$(calls step)"
"$INCLPROF" report rec >table.txt 2>/dev/null
check "the row is marked" grep -Eq '^ *1000 .* step \[also inlined: note 1\]$' table.txt
check "the note says where the other calls went" grep -qx \
  "1. step: also inlined into direct_loop at 1 site: those calls are counted there, not in its row" table.txt
COLUMNS=60 "$INCLPROF" report rec >narrow.txt 2>/dev/null
check "COLUMNS=60: the mark stays whole after the name" grep -Eq ' step \[also inlined: note 1\]$' narrow.txt
check_eq "COLUMNS=60: the note within the width" "" "$(sed -n '/^notes:/,$p' narrow.txt | awk 'length($0) > 60')"
# the same program twice in one session: the places are listed once
cp partly partly-again
"$INCLPROF" record -o twice -- sh -c './partly; ./partly-again' >/dev/null 2>&1
"$INCLPROF" report twice >twice.txt 2>/dev/null
check_eq "two executables that inlined step alike: each note lists the places once" \
  "1. step: also inlined into direct_loop at 1 site: those calls are counted there, not in its row" \
  "$(grep '^1\. ' twice.txt)"
check "the header counts it" grep -q '^no row: .*1 of the program.s functions partly inlined' table.txt
"$INCLPROF" report --missing rec >missing.txt 2>/dev/null
check "report --missing lists it with where it was inlined" grep -Eq '^ *partly\.c:9 +step +direct_loop at 1 site$' missing.txt
check "report --missing names the key that counts every call" grep -q 'noinline=NAME' missing.txt
check "the plugin's report says where it was inlined" grep -q \
  '^inlined	step	.*partly.c:9	into direct_loop at 1 site: those calls are counted there$' report.txt

printf '# count every call of step\nnoinline = step\n' >keep.filter
for how in "-fplugin-arg-inclprof-noinline=step" "-fplugin-arg-inclprof-filter=keep.filter"; do
  gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$how" "$PP/partly.c" -o kept || fail "build with $how"
  rm -rf rec && "$INCLPROF" record -o rec ./kept >out.txt 2>/dev/null || fail "record with $how"
  "$INCLPROF" export --format csv -o rec.csv rec 2>/dev/null
  check_eq "$how: step's row counts all 2000 calls" 2000 "$(calls step)"
  check_eq "$how: nothing partly inlined" 0 "$("$INCLPROF" report rec 2>/dev/null | grep -c 'also inlined')"
done
done_testing
