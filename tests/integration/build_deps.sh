#!/bin/sh
# build_deps.sh - header dependencies come from the compiler (-MMD -MP): a
# change to a shared contract in include/inclprof/ makes exactly the objects
# that include it (directly or through another header) out of date, and no
# other.  `make -q -W HEADER OBJECT` asks make as if HEADER had just been
# touched, without changing the tree: status 1 = would rebuild, 0 = up to date.
. "$INCLPROF_SRC/tests/lib.sh"

B=${INCLPROF_LIBDIR#"$INCLPROF_SRC"/}
if [ "$B" = "$INCLPROF_LIBDIR" ]; then
  fail "the build directory $INCLPROF_LIBDIR is not inside $INCLPROF_SRC (run through make check-integration)"
  exit 1
fi
check "the build is up to date" make -s -C "$INCLPROF_SRC" -q B="$B" build-all

# stale HEADER OBJECT: touching HEADER must make OBJECT out of date
stale() {
  make -s -C "$INCLPROF_SRC" -q B="$B" -W "$1" "$B/$2" >/dev/null 2>&1
  check_eq "$1 makes $2 out of date" 1 $?
}
# fresh HEADER OBJECT: OBJECT does not use HEADER and stays up to date
fresh() {
  make -s -C "$INCLPROF_SRC" -q B="$B" -W "$1" "$B/$2" >/dev/null 2>&1
  check_eq "$1 leaves $2 up to date" 0 $?
}

H=include/inclprof
stale $H/version.h runtime/sink/output.o
stale $H/version.h convert/cli/main.o
stale $H/version.h convert/export/pprof.o
fresh $H/version.h runtime/produce/flush.o

stale $H/trace_frame.h runtime/sink/output.o
stale $H/trace_frame.h runtime/trace/trace_frame.o
stale $H/trace_frame.h convert/trace/trace_frame.o
stale $H/trace_frame.h convert/read/trace_reader.o
fresh $H/trace_frame.h convert/read/batch_decode.o

stale $H/event_batch_wire.h runtime/produce/flush.o
stale $H/event_batch_wire.h convert/read/batch_decode.o
fresh $H/event_batch_wire.h runtime/sink/output.o

stale $H/inclprof_abi.h plugin/ip_abi.o
stale $H/inclprof_abi.h runtime/produce/registry.o
fresh $H/inclprof_abi.h plugin/ip_names.o
fresh $H/inclprof_abi.h convert/util/u64map.o

# Every shared header has at least one user that it makes out of date.
for h in "$INCLPROF_SRC"/$H/*.h; do
  h=$H/${h##*/}
  n=0
  for o in "$INCLPROF_LIBDIR"/runtime/*/*.o "$INCLPROF_LIBDIR"/plugin/*.o; do
    make -s -C "$INCLPROF_SRC" -q B="$B" -W "$h" "$B/${o#"$INCLPROF_LIBDIR"/}" >/dev/null 2>&1 || n=$((n + 1))
  done
  [ "$n" -gt 0 ] && ok "$h has $n users in runtime/ and plugin/" || fail "$h: no object of runtime/ or plugin/ depends on it"
done
done_testing
