# build.sh - sourced by the runtime integration tests: builds the ABI driver
# (linked with -linclprof) and the trace dumper into the current directory.
# Needs INCLPROF_SRC and INCLPROF_LIBDIR (tests/lib.sh sets them).
rt_build() {
  gcc -O2 -Wall -Werror -I"$INCLPROF_SRC/include/inclprof" -o abi_driver \
    "$INCLPROF_SRC/tests/programs/runtime/abi_driver.c" \
    -L"$INCLPROF_LIBDIR" -Wl,-rpath,"$INCLPROF_LIBDIR" -linclprof -lpthread &&
  gcc -O2 -Wall -Werror -I"$INCLPROF_SRC/include/inclprof" -o abi_driver_bare \
    "$INCLPROF_SRC/tests/programs/runtime/abi_driver.c" -lpthread &&
  gcc -O2 -Wall -Werror -I"$INCLPROF_SRC/convert" -I"$INCLPROF_SRC/include/inclprof" \
    -I"$INCLPROF_LIBDIR/gen" -o trace_dump "$INCLPROF_SRC/tests/programs/runtime/trace_dump.c" \
    "$INCLPROF_LIBDIR/libipconvert.a" -lprotobuf-c -ldeflate -lz
}
# rt_only_trace DIR: prints the single trace file in DIR (fails if not exactly one)
rt_only_trace() { set -- "$1"/*.ipb; [ $# -eq 1 ] && [ -f "$1" ] && echo "$1"; }
