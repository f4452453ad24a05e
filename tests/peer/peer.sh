#!/bin/sh
# peer.sh - `make peer` and `make peer-quick`: other tools' own test programs
# (GCC's torture and tree-prof tests, valgrind's callgrind, cachegrind and
# perf programs, strace's tests, uftrace's s-*.c, gdb's gdb.threads and
# gdb.base programs) from their Debian source packages, and
# inclprof's own programs of the kinds that broke under the runtime, each
# built plain and with the plugin and compared: exit status and standard
# output plain and under `inclprof record`, every function's calls against
# callgrind (tests/peer/peer.py).  Ends with `peer: N programs, M runs, K
# unexplained` (non-zero exit when K > 0); the per-suite table is written to
# build/peer-MODE/table.md, each run's differences to build/peer-MODE/runs/results.jsonl.
# Usage: sh tests/peer/peer.sh [full|quick]   (from the top of the repository,
# after make; INCLPROF, INCLPROF_PLUGIN set).  The source packages are
# fetched once into build/debian-src (scripts/debian-source.sh); quick runs
# the programs of tests/peer/quick.txt and, when a package cannot be
# fetched, says so on one line and skips.  PEER_JOBS (default 2) sets the
# parallel runs, PEER_ONLY=SUBSTRING limits the programs, PEER_RESUME=1
# keeps the runs of an earlier run cut short and makes only the others.
set -u
src=${INCLPROF_SRC:-$(pwd)}
mode=${1:-full}
cache=$src/build/debian-src
work=${INCLPROF_PEER_DIR:-$src/build/peer-$mode}
# the unpacked test programs, shared by both modes
up=$src/build/peer-src
mkdir -p "$work" "$up"
gccpkg=gcc-$(gcc -dumpversion | cut -d. -f1)

# orig PACKAGE: its upstream tarball.
orig() { ls "$cache/$1"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -1; }
# fetch PACKAGE: into the cache; prints why not on failure.
fetch() { sh "$src/scripts/debian-source.sh" "$cache" "$1" 2>"$work/fetch-$1.err" || { tail -n1 "$work/fetch-$1.err"; return 1; }; }

# The GCC testsuite directories, from the tarball inside Debian's tarball.
unpack_gcc() {
  [ -f "$up/gcc.done" ] && return 0
  rm -rf "$up/gcc" && mkdir -p "$up/gcc"
  inner=$(tar tzf "$(orig "$gccpkg")" | grep -E '/gcc-[0-9.]+(-dfsg)?\.tar\.(xz|gz|bz2)$' | head -1)
  tar xzf "$(orig "$gccpkg")" -O "$inner" | tar xJf - -C "$up/gcc" --strip-components=3 --wildcards \
    '*/gcc/testsuite/gcc.c-torture/execute/*' '*/gcc/testsuite/gcc.dg/tree-prof/*' '*/gcc/testsuite/g++.dg/tree-prof/*' &&
    touch "$up/gcc.done"
}
unpack_valgrind() {
  [ -f "$up/valgrind.done" ] && return 0
  rm -rf "$up/valgrind" && mkdir -p "$up/valgrind"
  tar xf "$(orig valgrind)" -C "$up/valgrind" --strip-components=1 --wildcards \
    '*/callgrind/tests/*' '*/cachegrind/tests/*' '*/perf/*' '*/include/*' '*/tests/*.h' '*/callgrind/*.h' &&
    # tests/malloc.h includes the configure output; these programs need none of it
    : >"$up/valgrind/config.h" && touch "$up/valgrind.done"
}
unpack_strace() {
  [ -f "$up/strace.done" ] && return 0
  rm -rf "$up/strace" && mkdir -p "$up/strace"
  tar xf "$(orig strace)" -C "$up/strace" --strip-components=1 && touch "$up/strace.done"
}
unpack_uftrace() {
  [ -f "$up/uftrace.done" ] && return 0
  rm -rf "$up/uftrace" && mkdir -p "$up/uftrace"
  tar xf "$(orig uftrace)" -C "$up/uftrace" --strip-components=1 --wildcards '*/tests/*' &&
    touch "$up/uftrace.done"
}

# gdb's testsuite programs of gdb.threads and gdb.base (their sources only)
unpack_gdb() {
  [ -f "$up/gdb.done" ] && return 0
  rm -rf "$up/gdb" && mkdir -p "$up/gdb"
  tar xf "$(orig gdb)" -C "$up/gdb" --strip-components=1 --wildcards \
    '*/gdb/testsuite/gdb.threads/*' '*/gdb/testsuite/gdb.base/*' '*/gdb/testsuite/lib/*.[ch]' && touch "$up/gdb.done"
}

args=""
pkgs="$gccpkg valgrind strace uftrace gdb"
# uftrace's and gdb's programs are not in the quick subset
[ "$mode" = quick ] && pkgs="$gccpkg valgrind"
for pkg in $pkgs; do
  if ! why=$(fetch "$pkg"); then
    if [ "$mode" = quick ]; then
      echo "skip - peer-quick: $why"
      exit 0
    fi
    echo "peer: $pkg: skipped: $why"
    continue
  fi
  case $pkg in
  gcc-*) unpack_gcc && args="$args --gcc-testsuite $up/gcc" ;;
  valgrind) unpack_valgrind && args="$args --valgrind $up/valgrind" ;;
  strace) unpack_strace && sh "$src/tests/peer/strace.sh" "$up/strace" "$src/build/peer-strace" &&
    args="$args --strace $up/strace --strace-build $src/build/peer-strace" ;;
  uftrace) unpack_uftrace && args="$args --uftrace $up/uftrace" ;;
  gdb) unpack_gdb && args="$args --gdb $up/gdb" ;;
  esac || { echo "peer: cannot unpack $pkg's source into $up (see the message above)"; exit 1; }
done
[ -n "$args" ] || { echo "peer: no source package could be fetched: nothing to run"; exit 1; }
# inclprof's own programs of the kinds that once broke under the runtime
args="$args --classes $src"
[ "$mode" = quick ] && args="$args --quick $src/tests/peer/quick.txt"
[ -n "${PEER_ONLY:-}" ] && args="$args --only $PEER_ONLY"
if [ -n "${PEER_RESUME:-}" ]; then
  args="$args --resume"
else
  rm -rf "$work/runs"
fi
mkdir -p "$work/runs"
# shellcheck disable=SC2086
exec python3 "$src/tests/peer/peer.py" $args --work "$work/runs" --jobs "${PEER_JOBS:-2}" --table "$work/table.md"
