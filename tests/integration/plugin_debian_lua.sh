#!/bin/sh
# plugin_debian_lua.sh - a real code base from a Debian source
# package (lua5.4, fetched with apt-get source into build/debian-src through a
# private deb-src list, the system's apt configuration untouched) builds with
# the plugin, runs a workload correctly, and its trace is balanced with no
# repairs.
. "$INCLPROF_SRC/tests/lib.sh"
cache="$INCLPROF_SRC/build/debian-src"
if ! ls "$cache"/lua5.4_*.orig.tar.gz >/dev/null 2>&1; then
  mkdir -p "$cache/parts" "$cache/lists/partial"
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    >"$cache/parts/src.sources"
  apt="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$cache/parts -o Dir::State::Lists=$cache/lists -o APT::Sandbox::User=root"
  limit=${INCLPROF_APT_TIMEOUT:-600}
  # shellcheck disable=SC2086
  (cd "$cache" && timeout --foreground -k 10 "$limit" apt-get $apt update -qq && timeout --foreground -k 10 "$limit" apt-get $apt source --download-only lua5.4) >fetch.log 2>&1
  rc=$?
  if [ "$rc" -ne 0 ]; then
    if [ "$rc" = 124 ]; then why="timed out after ${limit}s"; else why="failed (exit $rc)"; fi
    echo "FAIL - apt-get source $why fetching lua5.4's source package from deb.debian.org: rerun make check when it is reachable (INCLPROF_APT_TIMEOUT=seconds sets the limit), or put lua5.4_*.orig.tar.gz into $cache to skip the download"
    tail -3 fetch.log; exit 1
  fi
fi
mkdir lua && tar xzf "$cache"/lua5.4_*.orig.tar.gz -C lua --strip-components=1
check "lua5.4 builds with the plugin" make -C lua/src -j2 linux-noreadline MYCFLAGS="-fplugin=$INCLPROF_PLUGIN"
# lctype.c and lopcodes.c hold only tables: no function, nothing emitted.
check_eq "objects without functions are the only ones left uninstrumented" "lctype.o lopcodes.o" \
  "$(cd lua/src && for o in *.o; do nm "$o" | grep -q __inclprof_tu || printf '%s ' "$o"; done | sed 's/ $//')"
out=$("$INCLPROF" record lua/src/lua "$INCLPROF_SRC/tests/programs/plugin/lua_work.lua" 2>/dev/null)
check_eq "workload output" "17711	20000	k19999	4000" "$out"
"$INCLPROF" report >report.txt 2>&1
check "trace balanced with no repairs" grep -q 'repairs: *0 exits reconciled (0 frames skipped by an exit, 0 open at thread end, 0 unmatched exits ignored)' report.txt
"$INCLPROF" export --format csv -o lua.csv 2>/dev/null
calls() { awk -F, -v f="$1" '$1==f {print $5}' lua.csv; }
check_eq "table.sort ran once" 1 "$(calls sort)"
check "the comparator went through lua_compare... many times" test "$(calls sort_comp)" -gt 100000
done_testing
