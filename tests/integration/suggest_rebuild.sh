#!/bin/sh
# suggest_rebuild.sh - `inclprof suggest` on examples/wordfreq and on Debian's
# Lua (the source package plugin_debian_lua.sh fetched): profile, suggest,
# rebuild with the filter, profile again.  Asserted: what the filter excludes
# and keeps (the most distorted functions out; main, thread roots and --keep
# in; a function whose exclusion would fold too much untraced time into its
# caller kept, saying so), that the rebuilt program prints the same, that the
# excluded functions are gone from its trace while the kept ones have the
# same calls, that it records far fewer events (as estimated), and that the
# excluded functions' time now shows in their callers' Exclusive time.
# The decisions are made with --max-overhead 0.5: the estimate is a share of
# the session's Elapsed time, which a loaded machine inflates, so the default
# 5 % could already be met there; at 0.5 % every function whose probes cost
# more than 0.5 % of its own time is a candidate, whatever the load.
# The overhead and trace-size figures are `make bench-suggest`'s.
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
events() { "$INCLPROF" info "$1" | sed -n 's/^events: *\([0-9]*\).*/\1/p'; }

# --- wordfreq ------------------------------------------------------------------
wf() { env -u MAKEFLAGS -u MAKELEVEL make -s -C "$INCLPROF_SRC/examples/wordfreq" INCLPROF_PLUGIN="$INCLPROF_PLUGIN" \
         INCLPROF_INCLUDE="$INCLPROF_SRC/runtime" "$@"; }
check "wordfreq builds with the plugin" wf O="$T_DIR/wf1"
mkdir files
"$INCLPROF" record -o wf1.data -- ./wf1/wordfreq -t 3 -l 20000 -d files >run1.out 2>/dev/null
"$INCLPROF" suggest wf1.data --max-overhead 0.5 --keep word_table_add --max-fold 60 --top 1000 -o wf.filter >suggest.out 2>suggest.err
check_eq "suggest exits 0" 0 $?
check "the filter excludes strncmp's call sites (a library call, 114 % of its own time in probes)" grep -qx 'exclude-calls = strncmp' wf.filter
check "the filter excludes find_slot's probes" grep -qx 'exclude = find_slot' wf.filter
check "... and the call-site probes around calls to it" grep -qx 'exclude-calls = find_slot' wf.filter
check_eq "main, the thread roots and --keep word_table_add stay" "" \
  "$(grep -E '^exclude.* = (main|worker_main|reader_main|word_table_add)$' wf.filter)"
check "the table gives each decision: main kept as a root" grep -Eq ' main +keep: main or a thread.s outermost function$' suggest.out
check "... worker_main too" grep -Eq ' worker_main +keep: main or a thread.s outermost function$' suggest.out
check "the table gives each decision: word_table_add kept by --keep" grep -Eq ' word_table_add +keep: --keep$' suggest.out
check_eq "each exclude decision names where the time goes: a caller's Exclusive, or its callers' when there are several" "" \
  "$(grep ' exclude: ' suggest.out | grep -Ev " exclude: its [0-9.]+% of the session go to (its callers'|[^ ]+'s) Exclusive\$")"
check "the rebuild flags name the plugin beside the command and the filter's absolute path" \
  grep -q "^  -fplugin=$INCLPROF_PLUGIN -fplugin-arg-inclprof-filter=$T_DIR/wf.filter\$" suggest.out
est=$(sed -n 's/^estimate: .*events \([0-9]*\) -> \([0-9]*\);.*/\2/p' suggest.out)

check "wordfreq rebuilds with the filter (INCLPROF_FILTER=)" wf O="$T_DIR/wf2" INCLPROF_FILTER="$T_DIR/wf.filter"
"$INCLPROF" record -o wf2.data -- ./wf2/wordfreq -t 3 -l 20000 -d files >run2.out 2>/dev/null
check_eq "the rebuilt wordfreq counts the same words" "$(head -n1 run1.out)" "$(head -n1 run2.out)"
"$INCLPROF" export --format csv -o wf1.csv wf1.data 2>/dev/null
"$INCLPROF" export --format csv -o wf2.csv wf2.data 2>/dev/null
check_eq "find_slot and strncmp are gone from the new trace" "" "$(q wf2.csv '^(find_slot|strncmp)$' calls)"
check_eq "text_generate_file, results_write: the same calls" "$(q wf1.csv '^(text_generate_file|results_write)$' calls | tr '\n' ' ')" \
  "$(q wf2.csv '^(text_generate_file|results_write)$' calls | tr '\n' ' ')"
e1=$(events wf1.data) e2=$(events wf2.data)
# find_slot's and strncmp's probes, excluded above whatever the load, make
# 57-61 % of the events (2 per call); which cheaper functions join them
# depends on the load's effect on their measured cost (under a third of the
# events was left in most runs here, 39 % in one at a load of 35).
check "the new trace has under half of the events ($e1 -> $e2)" test "$((e2 * 2))" -lt "$e1"
check "the estimate of the events after was within 5 % ($est, recorded $e2)" \
  awk -v a="$est" -v b="$e2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 20 <= b) }'
r1=$(q wf1.csv '^word_table_add$' application_exclusive_ns application_inclusive_ns | awk -F'\t' '{printf "%.3f", $1 / $2}')
r2=$(q wf2.csv '^word_table_add$' application_exclusive_ns application_inclusive_ns | awk -F'\t' '{printf "%.3f", $1 / $2}')
# Before, find_slot's and strncmp's time is word_table_add's callees' (its
# Application Exclusive was 0.01 to 0.53 of its Application Inclusive in 10
# runs here at a load of 5 on 2 CPUs).  After, their work is
# word_table_add's own: its Application Exclusive is its Application
# Inclusive but for its calls of strndup, strlen and calloc (0.93 to 1.00 in
# runs here, 0.93 with the machine's load at 18 on 2 CPUs: the allocator's
# share grows when other work evicts its caches).  Application time, the
# CPU's work, on both sides: Elapsed also holds waits (four workers preempted
# on two CPUs, page faults) whose share moves from run to run (Elapsed
# Exclusive before reached 0.68 under load).
if "$INCLPROF" info wf2.data | grep -qi 'transitions*[^a-z]*none'; then
  ok "transition mode none: Application time is Elapsed time; skipping the Application checks"
else
  check "word_table_add: Application Exclusive / Inclusive below 0.75 before (find_slot's time its callee's: $r1)" awk -v r="$r1" 'BEGIN{exit !(r < 0.75)}'
  check "... Application Exclusive / Inclusive at least 0.85 after (find_slot's and strncmp's work its own: $r2)" \
    awk -v r="$r2" 'BEGIN{exit !(r >= 0.85)}'
fi
"$INCLPROF" suggest wf1.data --max-overhead 0.5 --max-fold 1 --top 1000 -o fold.filter >fold.out 2>&1
check "--max-fold 1: find_slot kept, the table says it would fold its time into word_table_add" \
  grep -Eq ' find_slot +keep: excluding it would fold [0-9.]+% of the session \(over 1%\) untraced into word_table_add$' fold.out
check_eq "... and the filter does not exclude it" "" "$(grep 'find_slot$' fold.filter | grep -v '^#')"
"$INCLPROF" suggest wf1.data -o /nonexistent/x.filter >nodir.out 2>nodir.err
check_eq "an unwritable -o: exit 1" 1 $?
check_eq "... one line, before any table" \
  "inclprof suggest: /nonexistent/x.filter: cannot write: No such file or directory; give a writable path with -o" \
  "$(cat nodir.err)$(cat nodir.out)"
"$INCLPROF" suggest nosuch.data -o kept.filter >/dev/null 2>&1
check "a failed run leaves no filter file behind" test ! -e kept.filter -a ! -e kept.filter.part

# --- Lua -----------------------------------------------------------------------
cache="$INCLPROF_SRC/build/debian-src"
if ! ls "$cache"/lua5.4_*.orig.tar.gz >/dev/null 2>&1; then
  fail "no lua5.4 source in $cache: tests/integration/plugin_debian_lua.sh fetches it (make check runs it first)"
  exit 1
fi
for d in lua1 lua2; do mkdir $d && tar xzf "$cache"/lua5.4_*.orig.tar.gz -C $d --strip-components=1; done
work="$INCLPROF_SRC/tests/programs/plugin/lua_work.lua"
check "lua5.4 builds with the plugin" make -s -C lua1/src -j2 linux-noreadline MYCFLAGS="-fplugin=$INCLPROF_PLUGIN"
out1=$("$INCLPROF" record -o lua1.data lua1/src/lua "$work" 2>/dev/null)
"$INCLPROF" suggest lua1.data --max-overhead 0.5 --max-fold 100 --keep luaV_execute --keep auxsort --keep str_format \
  --keep gmatch_aux -o lua.filter >lsuggest.out 2>&1
check_eq "suggest on Lua exits 0" 0 $?
check "lua_pushvalue (about twice its own time in probes) is excluded" grep -qx 'exclude = lua_pushvalue' lua.filter
check "index2value is excluded" grep -qx 'exclude = index2value' lua.filter
check_eq "main and the --keep functions stay" "" "$(grep -E '^exclude.* = (main|luaV_execute|auxsort|str_format|gmatch_aux)$' lua.filter)"
check "lua5.4 rebuilds with the filter" make -s -C lua2/src -j2 linux-noreadline \
  MYCFLAGS="-fplugin=$INCLPROF_PLUGIN -fplugin-arg-inclprof-filter=$T_DIR/lua.filter"
out2=$("$INCLPROF" record -o lua2.data lua2/src/lua "$work" 2>/dev/null)
check_eq "the rebuilt interpreter prints the same" "$out1" "$out2"
"$INCLPROF" export --format csv -o lua1.csv lua1.data 2>/dev/null
"$INCLPROF" export --format csv -o lua2.csv lua2.data 2>/dev/null
excluded=$(sed -n 's/^exclude-calls = //p' lua.filter | tr '\n' '|' | sed 's/|$//')
# An excluded function keeps no row of its own (no source file); one reached
# through a function pointer still has the indirect call's row, named from
# the executable's symbol table: Lua's allocator l_alloc.
check_eq "no excluded function has a row of its own in the new trace" "" \
  "$(q lua2.csv "^($excluded)\$" file | grep -v '^$')"
# (Whether suggest excludes l_alloc depends on its measured cost, which a
# loaded machine moves; no other excluded function may be left.)
left=$(q lua2.csv "^($excluded)\$" function | sort -u | tr '\n' ' ' | sed 's/ $//')
check "the excluded functions left are indirect-call targets only: l_alloc, or none (${left:-none})" \
  test "$left" = "" -o "$left" = l_alloc
kept='^(main|auxsort|luaV_execute|str_format|gmatch_aux)$'
check_eq "kept functions: the same calls before and after" "$(q lua1.csv "$kept" function calls | sort | tr '\n' ' ')" \
  "$(q lua2.csv "$kept" function calls | sort | tr '\n' ' ')"
e1=$(events lua1.data) e2=$(events lua2.data)
# (4.6 to 7 times fewer in runs here, the least with the machine's load at 15
# on 2 CPUs, where fewer functions cost over 0.5 % of their own time.)
check "the new trace has under a quarter of the events ($e1 -> $e2)" test "$((e2 * 4))" -lt "$e1"
est=$(sed -n 's/^estimate: .*events \([0-9]*\) -> \([0-9]*\);.*/\2/p' lsuggest.out)
check "the estimate of the events after was within 5 % ($est, recorded $e2)" \
  awk -v a="$est" -v b="$e2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 20 <= b) }'
s1=$(q lua1.csv '^luaV_execute$' elapsed_exclusive_pct) s2=$(q lua2.csv '^luaV_execute$' elapsed_exclusive_pct)
check "luaV_execute's Exclusive share grew by a third or more (l_strcmp, luaH_get... folded into it: $s1% -> $s2%)" \
  awk -v a="$s1" -v b="$s2" 'BEGIN{exit !(b >= 1.33 * a)}'
"$INCLPROF" suggest --keep no_such_function lua1.data >/dev/null 2>err
check_eq "--keep naming no function: exit 2" 2 $?
check "... one line naming it" sh -c "test \$(wc -l <err) -eq 1 && grep -q 'keep no_such_function names no function' err"
mkdir empty
"$INCLPROF" suggest empty >/dev/null 2>err
check_eq "an empty directory: exit 1" 1 $?
check_eq "... one line" 1 "$(wc -l <err)"
done_testing
