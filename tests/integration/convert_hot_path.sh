#!/bin/sh
# convert_hot_path.sh - report --tree --hot on a program whose hottest path
# is known by construction (hot_paths.c): by Elapsed time main ->
# wait_for_input -> usleep (800 ms asleep), by Application time main ->
# run_batch -> transform -> kernel_loop (the program's 2000 calls there);
# each level's hottest child alone, to the path's end; --top 2 adds the next
# child of each level, collapsed; the lines under the table name the end and
# its value, which equals that call path's value in the whole tree;
# --depth and --min-percent cut the path, --sort of the same kind as
# --value is the same path, of another kind a usage error.
. "$INCLPROF_SRC/tests/lib.sh"
check "hot_paths builds" cc_plugin hot_paths "$INCLPROF_SRC/tests/programs/convert/hot_paths.c" -O2
"$INCLPROF" record -o data ./hot_paths >run.txt 2>&1
check_eq "the program made 2100 kernel_loop calls" 2100 "$(sed -n 's/^calls kernel_loop //p' run.txt)"
hot() { "$INCLPROF" report --tree --hot --fields calls "$@" data 2>/dev/null | sed -n '/^ *Calls/,/^$/p'; }
hot >elapsed.txt
check_eq "by Elapsed: main, wait_for_input, usleep" \
  "$(printf '  Calls  Call path\n      1  main\n      1    wait_for_input\n      1      usleep')" \
  "$(sed -n '1,4p' elapsed.txt)"
check "... 3 levels" grep -q "^  hot path: 3 levels by Elapsed Inclusive$" elapsed.txt
end=$(sed -n "s/^  its end: usleep (\(.*\) of the thread's [0-9.]* [mun]*s)$/\1/p" elapsed.txt)
tree=$("$INCLPROF" report --tree --fields el-incl data 2>/dev/null | awk '$NF == "usleep" { print $1, $2 }')
check_eq "... its end: usleep, with its value in the whole tree" "$tree" "$end"
check "... where most of its own time went: usleep" grep -q '^  most Elapsed Exclusive on it: usleep (' elapsed.txt
hot --value application >app.txt
check_eq "by Application: main, run_batch, transform (4 calls), kernel_loop (2000 calls)" \
  "$(printf '  Calls  Call path\n      1  main\n      1    run_batch\n      4      transform\n   2000        kernel_loop')" \
  "$(sed -n '1,5p' app.txt)"
check "... 4 levels, ending in kernel_loop" grep -q '^  its end: kernel_loop (' app.txt
hot --value application --top 2 >app2.txt
check_eq "--top 2: the next child of each level beside, collapsed" \
  "$(printf '  Calls  Call path\n      1  main\n      1    run_batch\n      4      transform\n   2000        kernel_loop\n      4        qsort\n      1    warm_up')" \
  "$(sed -n '1,7p' app2.txt)"
hot --sort application-inclusive >sort.txt
check_eq "--sort application-inclusive: the same path as --value application" "$(sed -n '1,5p' app.txt)" "$(sed -n '1,5p' sort.txt)"
hot --depth 2 >d2.txt
check_eq "--depth 2: main, wait_for_input" \
  "$(printf '  Calls  Call path\n      1  main\n      1    wait_for_input')" "$(sed -n '1,3p' d2.txt)"
check "... the line says the path was cut" grep -q '^  hot path: 2 levels by Elapsed Inclusive, cut there (see hidden:)$' d2.txt
check "... names the last level shown" grep -q "^  its last level shown: wait_for_input (" d2.txt
check "... and what was left out below it" grep -q '^  hidden: 1 call path deeper than 2 levels (1 subtree, ' d2.txt
hot --value application --min-percent 99 >p99.txt
check_eq "--min-percent 99: main alone (run_batch is under 99 % of the Application time)" \
  "$(printf '  Calls  Call path\n      1  main')" "$(sed -n '1,2p' p99.txt)"
check "... the path cut there" grep -q '^  hot path: 1 level by Application Inclusive, cut there' p99.txt
"$INCLPROF" report --tree --hot --sort elapsed-inclusive --value application data >out.txt 2>err.txt
check_eq "--sort elapsed-inclusive --value application: a usage error" \
  "2 inclprof report: --sort elapsed-inclusive and --value application name different values for the tree; give one of them" \
  "$? $(cat err.txt)"
"$INCLPROF" report --hot data >out.txt 2>err.txt
check_eq "--hot without --tree: a usage error" "2 inclprof report: --hot goes with --tree" "$? $(cat err.txt)"
COLUMNS=60 "$INCLPROF" report --tree --hot data >narrow.txt 2>/dev/null
longest=$(awk '/^ *Calls/ { on = 1 } /^$/ { on = 0 } on { if (length($0) > m) m = length($0) } END { print m + 0 }' narrow.txt)
check "COLUMNS=60: the hot path and its lines fit ($longest)" test "$longest" -le 60
done_testing
