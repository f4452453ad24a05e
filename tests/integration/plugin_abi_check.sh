#!/bin/sh
# plugin_abi_check.sh - the plugin builds the ABI records field by field and
# checks their layout against inclprof_abi.h (offsetof/sizeof) when a unit
# starts: built against a header whose struct inclprof_fn has changed, it
# stops every compilation with one error naming the field, instead of
# emitting descriptors the runtime would misread.
. "$INCLPROF_SRC/tests/lib.sh"

GCC_PLUGIN_INC="$(gcc -print-file-name=plugin)/include"
# plugin_with HEADER_SED OUT: the plugin rebuilt with ip_abi.cc compiled
# against a copy of inclprof_abi.h edited by the sed script HEADER_SED.
plugin_with() {
  rm -rf inc && mkdir inc &&
  sed "$1" "$INCLPROF_SRC/include/inclprof/inclprof_abi.h" >inc/inclprof_abi.h &&
  g++ -std=gnu++14 -O2 -fPIC -fno-rtti -fno-exceptions -I"$GCC_PLUGIN_INC" -Iinc \
    -I"$INCLPROF_SRC/plugin" -c "$INCLPROF_SRC/plugin/ip_abi.cc" -o ip_abi.o &&
  g++ -shared -o "$2" ip_abi.o $(ls "$INCLPROF_LIBDIR"/plugin/*.o | grep -v '/ip_abi\.o$')
}
export LC_ALL=C # ASCII quotes in GCC's diagnostics
printf 'int twice(int x) { return 2 * x; }\nint main(void) { return twice(0); }\n' >prog.c

check "the plugin as built compiles a program" gcc -fplugin="$INCLPROF_PLUGIN" -c prog.c -o ok.o

check "a plugin against a header with one more field builds" \
  plugin_with 's/^  uint32_t runtime_flags;.*/&\n  uint32_t extra;/' extra.so
LC_ALL=C gcc -fplugin="$PWD/extra.so" -c prog.c -o bad.o 2>err.txt
check_eq "that plugin stops the compilation" 1 $?
check_eq "one error line" 1 "$(grep -c 'error:' err.txt)"
check "the error names the moved field and both layouts" grep -q \
  "inclprof: the plugin lays out 'struct inclprof_fn' field 'addr' as 8 bytes at offset 48, but 'inclprof_abi.h' has 8 bytes at offset 56" err.txt
check "no object is written" test ! -e bad.o

check "a plugin against a header with a wider field builds" \
  plugin_with 's/^  uint32_t line; /  uint64_t line; /' wide.so
LC_ALL=C gcc -fplugin="$PWD/wide.so" -c prog.c -o bad.o 2>err.txt
check_eq "that plugin stops the compilation" 1 $?
check "the error names the resized field" grep -q \
  "field 'line' as 4 bytes at offset 32, but 'inclprof_abi.h' has 8 bytes at offset 32" err.txt
done_testing
