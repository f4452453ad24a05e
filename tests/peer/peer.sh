#!/bin/sh
# peer.sh - `make peer` and `make peer-quick`: other tools' own test programs
# (GCC's torture and tree-prof tests, valgrind's callgrind, cachegrind and
# perf programs, uftrace's s-*.c) from their Debian source packages, each
# built plain and with the plugin and compared: exit status and standard
# output plain and under `inclprof record`, every function's calls against
# callgrind (tests/peer/peer.py).  Ends with `peer: N programs, M runs, K
# unexplained` (non-zero exit when K > 0); the per-suite table is written to
# $work/table.md.
# Usage: sh tests/peer/peer.sh [full|quick]   (from the top of the repository,
# after make; INCLPROF, INCLPROF_PLUGIN set).  The source packages are
# fetched once into build/debian-src (scripts/debian-source.sh); quick runs
# the programs of tests/peer/quick.txt and, when a package cannot be
# fetched, says so on one line and skips.  PEER_JOBS (default 2) sets the
# parallel runs, PEER_ONLY=SUBSTRING limits the programs.
set -u
src=${INCLPROF_SRC:-$(pwd)}
mode=${1:-full}
cache=$src/build/debian-src
work=${INCLPROF_PEER_DIR:-$src/build/peer}
mkdir -p "$work/src"
gccpkg=gcc-$(gcc -dumpversion | cut -d. -f1)

# fetch PACKAGE: into the cache; prints why not on failure.
fetch() { sh "$src/scripts/debian-source.sh" "$cache" "$1" 2>"$work/fetch-$1.err" || { tail -n1 "$work/fetch-$1.err"; return 1; }; }
# orig PACKAGE: its upstream tarball.
orig() { ls "$cache/$1"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -1; }

# The GCC testsuite directories, from the tarball inside Debian's tarball.
unpack_gcc() {
  [ -f "$work/src/gcc.done" ] && return 0
  rm -rf "$work/src/gcc" && mkdir -p "$work/src/gcc"
  inner=$(tar tzf "$(orig "$gccpkg")" | grep -E '/gcc-[0-9.]+(-dfsg)?\.tar\.(xz|gz|bz2)$' | head -1)
  tar xzf "$(orig "$gccpkg")" -O "$inner" | tar xJf - -C "$work/src/gcc" --strip-components=3 --wildcards \
    '*/gcc/testsuite/gcc.c-torture/execute/*' '*/gcc/testsuite/gcc.dg/tree-prof/*' '*/gcc/testsuite/g++.dg/tree-prof/*' &&
    touch "$work/src/gcc.done"
}
unpack_valgrind() {
  [ -f "$work/src/valgrind.done" ] && return 0
  rm -rf "$work/src/valgrind" && mkdir -p "$work/src/valgrind"
  tar xf "$(orig valgrind)" -C "$work/src/valgrind" --strip-components=1 --wildcards \
    '*/callgrind/tests/*' '*/cachegrind/tests/*' '*/perf/*' '*/include/*' '*/tests/*.h' '*/callgrind/*.h' &&
    # tests/malloc.h includes the configure output; these programs need none of it
    : >"$work/src/valgrind/config.h" && touch "$work/src/valgrind.done"
}
unpack_uftrace() {
  [ -f "$work/src/uftrace.done" ] && return 0
  rm -rf "$work/src/uftrace" && mkdir -p "$work/src/uftrace"
  tar xf "$(orig uftrace)" -C "$work/src/uftrace" --strip-components=1 --wildcards '*/tests/*' &&
    touch "$work/src/uftrace.done"
}

args=""
for pkg in "$gccpkg" valgrind uftrace; do
  if ! why=$(fetch "$pkg"); then
    if [ "$mode" = quick ] && [ "$pkg" != uftrace ]; then
      echo "skip - peer-quick: $why"
      exit 0
    fi
    echo "peer: $pkg: skipped: $why"
    continue
  fi
  case $pkg in
  gcc-*) unpack_gcc && args="$args --gcc-testsuite $work/src/gcc" ;;
  valgrind) unpack_valgrind && args="$args --valgrind $work/src/valgrind" ;;
  uftrace) unpack_uftrace && args="$args --uftrace $work/src/uftrace" ;;
  esac || { echo "peer: cannot unpack $pkg's source into $work/src (see the message above)"; exit 1; }
done
[ -n "$args" ] || { echo "peer: no source package could be fetched: nothing to run"; exit 1; }
[ "$mode" = quick ] && args="$args --quick $src/tests/peer/quick.txt"
[ -n "${PEER_ONLY:-}" ] && args="$args --only $PEER_ONLY"
rm -rf "$work/runs"
mkdir -p "$work/runs"
# shellcheck disable=SC2086
exec python3 "$src/tests/peer/peer.py" $args --work "$work/runs" --jobs "${PEER_JOBS:-2}" --table "$work/table.md"
