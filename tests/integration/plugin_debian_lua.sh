#!/bin/sh
# plugin_debian_lua.sh - a real code base from a Debian source
# package (lua5.4 of bookworm, fetched into build/debian-src by
# scripts/debian-source.sh with the mirror of this machine's apt sources) builds with
# the plugin, runs a workload correctly, and its trace is balanced with no
# repairs.
. "$INCLPROF_SRC/tests/lib.sh"
cache="$INCLPROF_SRC/build/debian-src"
if ! ls "$cache"/lua5.4_*.orig.tar.gz >/dev/null 2>&1 &&
  ! sh "$INCLPROF_SRC/scripts/debian-source.sh" "$cache" --suite bookworm lua5.4 2>fetch.log; then
  echo "FAIL - $(tail -n1 fetch.log); or put lua5.4_*.orig.tar.gz into $cache to skip the download"
  exit 1
fi
mkdir lua && tar xzf "$cache"/lua5.4_*.orig.tar.gz -C lua --strip-components=1
check "lua5.4 builds with the plugin" make -C lua/src -j2 linux-noreadline MYCFLAGS="-fplugin=$INCLPROF_PLUGIN"
# lctype.c and lopcodes.c hold only tables: no function, nothing emitted.
check_eq "objects without functions are the only ones left uninstrumented" "lctype.o lopcodes.o" \
  "$(cd lua/src && for o in *.o; do nm "$o" | grep -q __inclprof_tu || printf '%s ' "$o"; done | sed 's/ $//')"
out=$("$INCLPROF" record lua/src/lua "$INCLPROF_SRC/tests/programs/plugin/lua_work.lua" 2>/dev/null)
check_eq "workload output" "17711	20000	k19999	4000" "$out"
"$INCLPROF" report >report.txt 2>&1
check "trace balanced with no repairs" grep -q 'repairs: *0 exits reconciled (0 frames skipped by an exit or a longjmp, 0 open at thread end, 0 unmatched exits ignored)' report.txt
"$INCLPROF" export --format csv -o lua.csv 2>/dev/null
calls() { awk -F, -v f="$1" '$1==f {print $5}' lua.csv; }
check_eq "table.sort ran once" 1 "$(calls sort)"
check "the comparator went through lua_compare... many times" test "$(calls sort_comp)" -gt 100000
done_testing
