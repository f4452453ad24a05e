#!/bin/sh
# convert_tree_limits.sh - report --tree --depth N and --min-percent P on a
# program whose call tree is known (tests/programs/convert/tree_shape.c:
# main -> outer -> middle -> inner holding the work, main -> tiny): the
# paths shown, and the line naming exactly how many call paths were left
# out; the options' usage errors.
. "$INCLPROF_SRC/tests/lib.sh"
cc_plugin shape -O2 "$INCLPROF_SRC/tests/programs/convert/tree_shape.c" || { fail "build tree_shape"; exit 1; }
"$INCLPROF" record -o tr ./shape >/dev/null 2>&1 || { fail "record tree_shape"; exit 1; }

# paths FILE: the call paths the tree shows, one name a line
paths() { awk '/Call path/ { on = 1; next } on && NF == 0 { on = 0 } on && !/hidden:/ { print $NF }' "$1" | tr '\n' ' '; }

"$INCLPROF" report --tree tr >all.txt 2>&1
check_eq "the whole tree has five call paths" "main outer middle inner tiny " "$(paths all.txt)"
check "the whole tree hides nothing" sh -c "! grep -q hidden: all.txt"

"$INCLPROF" report --tree --depth 2 tr >d2.txt 2>&1
check_eq "--depth 2 shows main and its callees" "main outer tiny " "$(paths d2.txt)"
check "--depth 2 names the 2 paths left out below outer" \
  grep -q "^  hidden: 2 call paths deeper than 2 levels (1 subtree, .* of Elapsed Inclusive at their tops)$" d2.txt

"$INCLPROF" report --tree --depth 1 tr >d1.txt 2>&1
check_eq "--depth 1 shows main only" "main " "$(paths d1.txt)"
check "--depth 1 names the 4 paths under main" \
  grep -q "^  hidden: 4 call paths deeper than 1 level (2 subtrees, " d1.txt

"$INCLPROF" report --tree --min-percent 1 tr >p1.txt 2>&1
check_eq "--min-percent 1 leaves tiny out" "main outer middle inner " "$(paths p1.txt)"
check "--min-percent 1 names tiny's path" \
  grep -q "^  hidden: 1 call path in 1 subtree under 1% of the session's Elapsed Inclusive (" p1.txt
"$INCLPROF" report --tree --min-percent 1 --sort application-inclusive tr >a1.txt 2>&1
check "--sort application-inclusive makes it Application Inclusive" \
  grep -q "under 1% of the session's Application Inclusive" a1.txt

"$INCLPROF" report --tree --depth 3 --min-percent 1 tr >both.txt 2>&1
check_eq "--depth 3 --min-percent 1 together" "main outer middle " "$(paths both.txt)"
check_eq "both lines, one each" 2 "$(grep -c '^  hidden: ' both.txt)"

for bad in "--depth 0" "--depth x" "--min-percent 101" "--min-percent -1" "--min-percent 5%"; do
  "$INCLPROF" report --tree $bad tr >out.txt 2>err.txt
  check_eq "report --tree $bad: usage error" 2 "$?"
done
check "the usage error names the value" grep -q "bad --min-percent '5%' (a percentage, 0 to 100)" err.txt
"$INCLPROF" report --depth 2 tr >out.txt 2>err.txt
check_eq "--depth without --tree: usage error" 2 "$?"
check_eq "--depth without --tree: the line" "inclprof report: --depth goes with --tree" "$(cat err.txt)"
done_testing
