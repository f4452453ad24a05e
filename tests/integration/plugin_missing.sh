#!/bin/sh
# plugin_missing.sh - functions that get no row are named, with why: the
# plugin lists each unit's functions without probes in the object's
# .inclprof.skipped section, and report counts them in its header and lists
# them with --missing (inlined into which callers, unused, excluded by which
# rule); a function inlined in one unit but instrumented in another has a
# row and is not listed.
. "$INCLPROF_SRC/tests/lib.sh"
S=$INCLPROF_SRC/tests/programs/plugin/missing

check "the program builds with the plugin (exclude=skipped_by_rule)" \
  cc_plugin prog "$S/main.c" "$S/other.c" -O2 -fplugin-arg-inclprof-exclude=skipped_by_rule
check_eq "it runs" "8 9 8" "$("$INCLPROF" record -o tr -- ./prog 2>/dev/null)"
check "the linked program carries the units' lists" sh -c "readelf -S prog | grep -q '\.inclprof\.skipped'"
"$INCLPROF" report tr >report.txt 2>/dev/null
check_eq "the header counts them and names the command" \
  "no row:       2 of the program's functions were inlined into their callers (their time is their callers'); 2 excluded, below min-size or unused: 'inclprof report --missing' lists them" \
  "$(grep '^no row:' report.txt)"
"$INCLPROF" report --missing tr >missing.txt 2>/dev/null
row() { grep -E "^ +$1 +$2 +$3\$" missing.txt >/dev/null; }
check "busy: inlined into main" row 'main\.c:12' busy 'inlined into main'
check "tiny: inlined into kept" row 'main\.c:18' tiny 'inlined into kept'
check "never_called: removed as unused" row 'main\.c:20' never_called 'removed as unused'
check "skipped_by_rule: excluded, with the rule" row 'main\.c:21' skipped_by_rule \
  'not instrumented: excluded by argument: exclude=skipped_by_rule'
check "twice, out of line in other.c, has a row and is not listed" sh -c "! grep -q twice missing.txt"
check_eq "exactly four functions listed" 4 "$(grep -c 'main\.c:' missing.txt)"
check "it says how to keep a function out of line" grep -q '__attribute__((noinline))' missing.txt
check "--missing and --tree are different views" sh -c "! '$INCLPROF' report --missing --tree tr >/dev/null 2>&1"
# Every function has a row: no header line, and --missing says so.
check "a program whose functions all have rows" cc_plugin all "$S/other.c" -O2 -Dother=main -Wno-main
"$INCLPROF" record -o tr2 -- ./all >/dev/null 2>&1
check "no 'no row:' line when there is nothing to say" sh -c "! '$INCLPROF' report tr2 2>/dev/null | grep -q '^no row:'"
done_testing
