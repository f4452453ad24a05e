#!/bin/sh
# plugin_coroutine_ramp.sh - a coroutine's ramp is kept out of line, as its
# body is (coro_ramp.cc: count_up(n), whose small ramp GCC would inline
# into main's loop at -O2, started 300 times and resumed until done): the
# ramp's row counts the coroutines the program started, each one operation
# starting at the ramp, and the plugin's report says it was inlined nowhere.
. "$INCLPROF_SRC/tests/lib.sh"
need python3
g++ -std=c++20 -O2 -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-report=report.txt \
  "$INCLPROF_SRC/tests/programs/plugin/coro_ramp.cc" -o coro_ramp || fail "build coro_ramp.cc"
own=$("$INCLPROF" record -o rec ./coro_ramp 2>/dev/null)
check_eq "the program's own counts" "started 300 resumed 900" "$own"
"$INCLPROF" export --format csv -o rec.csv rec 2>/dev/null
col() { python3 "$INCLPROF_SRC/scripts/csv_query.py" rec.csv "^count_up\\(long\\)$1\$" "$2"; }
check_eq "the ramp count_up(long): one call per coroutine started" 300 "$(col '' calls)"
check_eq "the body: one operation per coroutine started" 300 "$(col ' \[coroutine body\]' operations)"
check_eq "the body: one run per start and resumption, one per destruction" 1500 "$(col ' \[coroutine body\]' calls)"
check "the plugin's report: the ramp was inlined nowhere" sh -c "! grep -q '^inlined	count_up(long)	' report.txt"
"$INCLPROF" report --tree --fields calls rec >tree.txt 2>/dev/null
# "  300    count_up(long)" under main, and in its subtree the body's 300 first runs
check_eq "report --tree: main calls the ramp 300 times, and the ramp the body's 300 first runs" "300 300" \
  "$(awk '$NF == "main" { m = 1; next } m && /^ *[0-9]+    count_up\(long\)$/ { r = $1; next }
    r && /^ *[0-9]+      count_up\(long\) \[coroutine body\]$/ { print r, $1; exit }
    r && /^ *[0-9]+    [^ ]/ { r = "" }' tree.txt)"
done_testing
