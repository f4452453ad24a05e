#!/bin/sh
# plugin_known_callees.sh - call-site probes only around callees no unit
# instruments.  A build with list-instrumented=FILE lists the public
# functions it gives probes; the next build, with known-instrumented=FILE,
# puts no call-site probes around calls of them from other units: fewer
# instructions not recording (callgrind), the same counts and call paths
# recorded.  A function the list does not name (excluded in its unit) keeps
# its call-site probes.  Under -flto, a call of a function compiled in
# another partition needs no list.  A list that cannot be read stops the
# compile with a one-line message.
. "$INCLPROF_SRC/tests/lib.sh"
P="$INCLPROF_SRC/tests/programs/plugin"
PF="-fplugin=$INCLPROF_PLUGIN"
# build NAME ARGS...: prog-NAME from the two units, the plugin's ARGS on both
build() {
  name=$1
  shift
  gcc -O2 "$PF" "$@" -fplugin-arg-inclprof-report="report-$name.txt" -c "$P/xunit_main.c" -o "main-$name.o" &&
    gcc -O2 "$PF" "$@" -fplugin-arg-inclprof-exclude=offset -c "$P/xunit_lib.c" -o "lib-$name.o" &&
    gcc -o "prog-$name" "main-$name.o" "lib-$name.o"
}
build listing -fplugin-arg-inclprof-list-instrumented=fns.list || { fail "build with list-instrumented"; exit 1; }
check_eq "the list: the public functions given probes, one a line" "main scale" "$(sort fns.list | tr '\n' ' ' | sed 's/ $//')"
build known -fplugin-arg-inclprof-known-instrumented=fns.list || { fail "build with known-instrumented"; exit 1; }
sites() { sed -n 's/^instrumented\tmain\t.*callsites=\([0-9]*\).*/\1/p' "report-$1.txt"; }
check_eq "main's call-site probes: scale, offset, printf without the list; offset, printf with it" \
  "3 2" "$(sites listing) $(sites known)"

# recorded: the same rows, counts and call paths
for b in listing known; do
  rm -rf "data-$b"
  "$INCLPROF" record -o "data-$b" "./prog-$b" >"out-$b.txt" 2>/dev/null
  "$INCLPROF" export --format csv -o "rows-$b.csv" "data-$b" 2>/dev/null
  "$INCLPROF" export --format folded -o "paths-$b.txt" "data-$b" 2>/dev/null
  awk -F, 'NR > 1 { print $1, $5 }' "rows-$b.csv" | sort >"calls-$b.txt"
  sed 's/ [0-9]*$//; s/^thread [^;]*;//' "paths-$b.txt" | sort -u >"stacks-$b.txt"
done
check_eq "the program's output alike" "$(cat out-listing.txt)" "$(cat out-known.txt)"
check_eq "calls: main 1, scale and offset (a call-site row) 1000 each" "1000 1000 1" \
  "$(awk '$1 == "scale" || $1 == "offset" || $1 == "main" { c[$1] = $2 } END { print c["scale"], c["offset"], c["main"] }' calls-known.txt)"
check "every row's calls alike with and without the list" cmp -s calls-listing.txt calls-known.txt
check "the call paths alike" cmp -s stacks-listing.txt stacks-known.txt
check "main;scale is a path" grep -qx 'main;scale' stacks-known.txt

need valgrind
# instructions not recording: the tests of scale's call-site probes are gone
# (2 052 instructions fewer with GCC 12)
ir() { valgrind --tool=callgrind --callgrind-out-file="cg-$1.out" "./prog-$1" >/dev/null 2>&1 &&
  awk '/^summary:/ { print $2 }' "cg-$1.out"; }
before=$(ir listing) after=$(ir known)
check "not recording: at least 1 000 instructions fewer (1 000 calls of scale): $before -> $after" \
  test "$((before - after))" -ge 1000

# -flto, one function a partition: a call into another partition has none
gcc -O2 -flto "$PF" -c "$P/xunit_main.c" -o main-lto.o && gcc -O2 -flto "$PF" -c "$P/xunit_lib.c" -o lib-lto.o &&
  gcc -O2 -flto -flto-partition=max "$PF" -fplugin-arg-inclprof-report=report-lto.txt main-lto.o lib-lto.o \
    -o prog-lto 2>/dev/null
check_eq "-flto-partition=max: main's only call-site probes are printf's" 1 "$(sites lto)"
"$INCLPROF" record -o data-lto ./prog-lto >/dev/null 2>&1
"$INCLPROF" export --format csv -o rows-lto.csv data-lto 2>/dev/null
check_eq "-flto: scale, offset, main calls" "1000 1000 1" \
  "$(awk -F, '$1 == "scale" || $1 == "offset" || $1 == "main" { c[$1] = $5 } END { print c["scale"], c["offset"], c["main"] }' rows-lto.csv)"

# a list that cannot be used
gcc -O2 "$PF" -fplugin-arg-inclprof-known-instrumented=missing.list -c "$P/xunit_main.c" -o x.o 2>err.txt
check_eq "a missing list: the compile fails" 1 "$?"
check "... naming the list and how to write it" \
  grep -q "cannot open the known-instrumented list .missing.list.: No such file or directory; write it with .-fplugin-arg-inclprof-list-instrumented=FILE." err.txt
printf 'scale\nnot a name\n' >bad.list
gcc -O2 "$PF" -fplugin-arg-inclprof-known-instrumented=bad.list -c "$P/xunit_main.c" -o x.o 2>err.txt
check "a line that is no name: FILE:LINE and the line" grep -q "bad.list:2: expected one function name a line, got .not a name." err.txt
done_testing
