#!/bin/sh
# strace.sh - strace's test programs for `make peer`, built by strace's own
# Makefiles twice: OUT/plain with CFLAGS "-O2 -g", OUT/inst the same with
# inclprof's plugin.  Each tree is configured once (no mpers, no stack
# tracing, no SELinux); then tests/ makes its generated headers, libtests.a
# and the programs (make -k: a program that fails to build is missing from
# its tree).  A tree whose CFLAGS or plugin changed is cleaned and built
# again.  OUT/programs.txt lists the test programs (tests/check_PROGRAMS,
# each once).
# Usage: sh tests/peer/strace.sh SRC OUT   (SRC: strace's unpacked source;
# INCLPROF_PLUGIN set)
set -u
srcdir=$(cd "${1:?usage: strace.sh SRC OUT}" && pwd)
mkdir -p "${2:?usage: strace.sh SRC OUT}"
out=$(cd "$2" && pwd)
plugin=${INCLPROF_PLUGIN:?INCLPROF_PLUGIN names the plugin}
# a make file that prints the test programs of tests/Makefile (make syntax)
# shellcheck disable=SC2016
printf 'peer-programs:\n\t@echo $(check_PROGRAMS)\n' >"$out/programs.mk"

# tree NAME CFLAGS: configured and built; 1 when configure fails
tree() {
  d=$out/$1
  key="$2 $(cksum <"$plugin")"
  if [ ! -f "$d/configured" ]; then
    rm -rf "$d" && mkdir -p "$d"
    (cd "$d" && "$srcdir/configure" --enable-mpers=no --disable-stacktrace --without-libselinux \
      --disable-gcc-Werror CFLAGS="$2" >configure.log 2>&1) || {
      echo "peer: strace's configure failed: see $d/configure.log"
      return 1
    }
    touch "$d/configured"
  fi
  if [ "$(cat "$d/key" 2>/dev/null)" != "$key" ]; then
    make -C "$d/tests" clean >/dev/null 2>&1
    echo "$key" >"$d/key"
  fi
  [ -f "$out/programs.txt" ] ||
    make -s -C "$d/tests" -f Makefile -f "$out/programs.mk" peer-programs | tr ' ' '\n' | grep . | sort -u >"$out/programs.txt"
  progs=$(cat "$out/programs.txt")
  # shellcheck disable=SC2086
  { make -C "$d/tests" CFLAGS="$2" ksysent.h scno.h &&
    make -k -C "$d/tests" -j"${PEER_JOBS:-2}" CFLAGS="$2" libtests.a $progs; } >"$d/build.log" 2>&1
  return 0
}

tree plain "-O2 -g" && tree inst "-O2 -g -fplugin=$plugin"
