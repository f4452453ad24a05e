#!/bin/sh
# runtime_modules.sh - modules are what was loaded, checked against the
# program's own counts (tests/programs/modules):
#  - a library found through a relative LD_LIBRARY_PATH (an uninstalled
#    libtool build's .libs) is a module of its own, under its real path, with
#    its calls; the executable keeps its own base, so its callees named by
#    address alone are named from its file;
#  - a library dlopened by a relative path, unloaded, and another loaded at
#    the same base: each library's functions under their own names and
#    counts, in the thread that unloads them and in a worker whose events of
#    both libraries are still buffered across the dlclose.
. "$INCLPROF_SRC/tests/lib.sh"
need python3
P="$INCLPROF_SRC/tests/programs/modules"
Q="$INCLPROF_SRC/scripts/csv_query.py"
mkdir -p .libs sub
gcc -fplugin="$INCLPROF_PLUGIN" -O2 -fPIC -shared -DLIB=one "$P/modlib.c" -o .libs/libone.so &&
  cp .libs/libone.so sub/libone.so &&
  gcc -fplugin="$INCLPROF_PLUGIN" -O2 -fPIC -shared -DLIB=two "$P/modlib.c" -o sub/libtwo.so &&
  gcc -O2 -c "$P/plain.c" -o plain.o &&
  cc_plugin modlinked -O2 -DLINKED "$P/modmain.c" plain.o -L.libs -lone -ldl &&
  cc_plugin modmain -O2 "$P/modmain.c" plain.o -ldl -pthread ||
  { fail "build the module programs"; exit 1; }
here=$(realpath .)

# ---- a library found through LD_LIBRARY_PATH=.libs
LD_LIBRARY_PATH=.libs INCLPROF_OUTPUT=out1 ./modlinked linked 1000 >truth1.txt
check_eq "linked: program ran" 0 "$?"
"$INCLPROF" export --format csv -o linked.csv out1 2>/dev/null
check_eq "linked: one_entry's calls and module" "1	$here/.libs/libone.so" \
  "$(python3 "$Q" linked.csv '^one_entry$' calls module)"
check_eq "linked: one_leaf's calls (the program's count) and module" \
  "$(awk '$1 == "one_leaf" { print $2 }' truth1.txt)	$here/.libs/libone.so" \
  "$(python3 "$Q" linked.csv '^one_leaf$' calls module)"
check_eq "linked: the address-only callee of the executable is named from its file" \
  "$(awk '$1 == "plain_cb" { print $2 }' truth1.txt)	$here/modlinked" \
  "$(python3 "$Q" linked.csv '^plain_cb$' calls module)"
check_eq "linked: no row is named executable+offset" "" "$(python3 "$Q" linked.csv 'modlinked\+0x' calls)"
"$INCLPROF" report --by module out1 >mods1.txt 2>/dev/null
check "linked: the library is in the module table" grep -q " $here/.libs/libone.so\$" mods1.txt
check_eq "linked: the executable's calls are its own (main, call_plain, plain_cb)" \
  "$(($(awk '$1 == "plain_cb" { print $2 }' truth1.txt) + 2))" \
  "$(awk -v m="$here/modlinked" '$NF == m { print $1 }' mods1.txt)"
"$INCLPROF" info out1 >info1.txt 2>/dev/null
check_eq "linked: the executable's load base is its own" \
  "$(awk '$1 == "base" && $2 == "main" { print $3 }' truth1.txt)" \
  "$(awk -v m="$here/modlinked" '$1 ~ /^0x/ && $2 == m { print $1 }' info1.txt)"

# ---- dlopen by a relative path, dlclose, another library at the same base
INCLPROF_OUTPUT=out2 ./modmain reload ./sub/libone.so ./sub/libtwo.so 1000 >truth2.txt
check_eq "reload: program ran" 0 "$?"
check_eq "reload: both libraries were loaded at one base (what this test is about)" 1 \
  "$(awk '$1 == "base" { print $3 }' truth2.txt | sort -u | wc -l)"
"$INCLPROF" export --format csv -o reload.csv out2 2>/dev/null
for f in one_entry one_leaf two_entry two_leaf; do
  lib=sub/lib${f%%_*}.so
  check_eq "reload: $f's calls (the program's count) and module" \
    "$(awk -v f="$f" '$1 == f { print $2 }' truth2.txt)	$here/$lib" \
    "$(python3 "$Q" reload.csv "^$f\$" calls module)"
done
"$INCLPROF" report --tree out2 >tree2.txt 2>/dev/null
check_eq "reload: no call of one library's function under the other's" "" \
  "$(grep -A1 -E ' one_entry$' tree2.txt | grep ' two_')$(grep -A1 -E ' two_entry$' tree2.txt | grep ' one_')"
"$INCLPROF" report --by module out2 >mods2.txt 2>/dev/null
for lib in one two; do
  check_eq "reload: lib$lib.so's calls in the module table" \
    "$(awk -v f="${lib}_leaf" '$1 == f { n = $2 } $1 == "'"$lib"'_entry" { e = $2 } END { print n + e }' truth2.txt)" \
    "$(awk -v m="$here/sub/lib$lib.so" '$NF == m { print $1 }' mods2.txt)"
done
done_testing
