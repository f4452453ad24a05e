#!/bin/sh
# convert_symbolize.sh - no run-time address names a row: an instrumented
# function calls a static function and a hidden assembly routine through
# pointers (neither instrumented nor in the dynamic symbol table); the
# converter names them from the module's symbol table (with file and line
# from the debug info when there is some), as MODULE+0xOFFSET when the module
# is stripped or changed since recording, the same in every run (ASLR);
# `info` lists every module's load base.  A C++ target named by its dynamic
# symbol is demangled.
. "$INCLPROF_SRC/tests/lib.sh"
need nm strip
P="$INCLPROF_SRC/tests/programs/convert"
# rows DIR: "function,module basename,calls" per row, sorted
rows() {
  "$INCLPROF" export --format csv -o - "$1" 2>"$1.err" |
    awk -F, 'NR > 1 { n = split($2, m, "/"); print $1 "," m[n] "," $5 }' | sort
}
# row DIR FUNCTION: that row
row() { rows "$1" | awk -F, -v f="$2" '$1 == f'; }
# no_raw DIR: no row name looks like a run-time address
no_raw() { ! "$INCLPROF" export --format csv -o - "$1" 2>/dev/null | cut -d, -f1 | grep -Eq '0x[0-9a-f]{8,}'; }
rec() { rm -rf "$1" && "$INCLPROF" record -o "$1" "./$2" >"$1.out" 2>/dev/null && [ "$(cat "$1.out")" = 360 ]; }

gcc -O2 -c "$P/sym_targets.c" "$P/sym_asm.S" || fail "targets compile"
gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/sym_main.c" sym_targets.o sym_asm.o -o exe ||
  fail "program compiles"
check "targets in the executable: not exported" sh -c '! nm -D exe | grep -Eq "hidden_square|asm_add3"'
check "recorded" rec d1 exe
check_eq "static function named from .symtab" "hidden_square,exe,10" "$(row d1 hidden_square)"
check_eq "assembly routine named from .symtab" "asm_add3,exe,10" "$(row d1 asm_add3)"
check "no row named by an address" no_raw d1
check "recorded again" rec d2 exe
check_eq "same rows in a second run (ASLR)" "$(rows d1)" "$(rows d2)"

gcc -O2 -g -fPIC -shared "$P/sym_targets.c" "$P/sym_asm.S" -o libt.so || fail "library compiles"
gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/sym_main.c" -L. -lt -Wl,-rpath,"$T_DIR" -o exe_lib ||
  fail "program with the library compiles"
check "recorded with the library" rec d3 exe_lib
check_eq "static function in a library" "hidden_square,libt.so,10" "$(row d3 hidden_square)"
check_eq "...with its file and line from the debug info" "$P/sym_targets.c 4" \
  "$("$INCLPROF" export --format csv -o - d3 2>/dev/null | awk -F, '$1 == "hidden_square" { print $3, $4 }')"
check_eq "assembly routine in a library" "asm_add3,libt.so,10" "$(row d3 asm_add3)"
check "no row named by an address (library)" no_raw d3
check "info lists the library's load base" sh -c \
  "'$INCLPROF' info d3 | grep -Eq '^ +0x[0-9a-f]+  $T_DIR/libt.so\$'"
check "info lists the executable's load base" sh -c \
  "'$INCLPROF' info d3 | grep -Eq '^ +0x[0-9a-f]+  $T_DIR/exe_lib\$'"

# Stripped: no symbol table, no debug info: module+offset, the offsets those
# of the unstripped copy's symbols.
cp libt.so libts.so && strip libts.so
gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/sym_main.c" -L. -lts -Wl,-rpath,"$T_DIR" -o exe_stripped ||
  fail "program with the stripped library compiles"
off() { printf '0x%x' "0x$(nm libt.so | awk -v s="$1" '$3 == s { print $1 }')"; }
sq=$(off hidden_square) add=$(off asm_add3)
check "recorded with the stripped library" rec d4 exe_stripped
check_eq "stripped: the static function is libts.so+OFFSET" "libts.so+$sq,libts.so,10" \
  "$(row d4 "libts.so+$sq")"
check_eq "stripped: the assembly routine is libts.so+OFFSET" "libts.so+$add,libts.so,10" \
  "$(row d4 "libts.so+$add")"
check "no row named by an address (stripped)" no_raw d4
check "recorded again (stripped)" rec d5 exe_stripped
check_eq "same rows in a second run (stripped, ASLR)" "$(rows d4)" "$(rows d5)"

# The library changed after recording: said once, offsets instead of names.
touch -d '2001-01-01' libt.so
"$INCLPROF" report d3 d3 >/dev/null 2>err
check_eq "a changed module file is said once" 1 "$(grep -c "libt.so changed since it was recorded" err)"
"$INCLPROF" report --jobs 1 d3 d3 >/dev/null 2>err1
check "...also when the files are read one after another (--jobs 1)" cmp err err1
check_eq "changed module: offsets, not stale names" "libt.so+$sq,libt.so,10" "$(row d3 "libt.so+$sq")"
rm libt.so
"$INCLPROF" report d3 >/dev/null 2>err
check_eq "a vanished module file is said once" 1 "$(grep -c "libt.so is gone since it was recorded" err)"
check_eq "vanished module: offsets" "libt.so+$add,libt.so,10" "$(row d3 "libt.so+$add")"
check "no row named by an address (vanished)" no_raw d3

g++ -O2 -fplugin="$INCLPROF_PLUGIN" "$P/sym_new.cc" -o newcall || fail "C++ program compiles"
"$INCLPROF" record -o d6 ./newcall >/dev/null 2>&1
check_eq "C++ target named by its dynamic symbol: demangled" "operator new(unsigned long),libstdc++.so.6,3" \
  "$("$INCLPROF" export --format csv -o - d6 2>/dev/null | awk -F, '$1 == "operator new(unsigned long)" { n = split($2, m, "/"); print $1 "," m[n] "," $5 }')"
done_testing
