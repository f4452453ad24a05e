#!/bin/sh
# deps.sh - make sure the Debian packages inclprof needs are installed, from a
# machine without a compiler onwards.  As root it installs what is missing
# (apt-get update when the package lists are missing or older than 12 hours,
# then install --no-install-recommends); otherwise it prints the exact command
# to run and fails.  Every apt-get run has a time limit
# (INCLPROF_APT_TIMEOUT seconds, default 1800); a failure is one line saying
# what was being fetched and how to retry.
# Usage: scripts/deps.sh [build|test|bench|stress|field|peer]   (test, bench,
# field and peer include the levels before them; stress is build plus its own)
# Debian 12 (bookworm) and 13 (trixie) name some packages differently
# (release_pkgs below).  INCLPROF_GCC=gcc-N (make GCC=gcc-N) installs that
# GCC, its g++ and its plugin headers instead of the default gcc's.
#   build  compilers, make, the GCC plugin headers, protobuf-c, zlib, libdeflate
#          (the runtime's CRC-32 of event batches), elfutils
#          (libdw, libelf) and libiberty (the converter names code addresses),
#          capstone (report --by address disassembles the sampled instructions),
#          go-md2man (the man pages `make install` makes of docs/commands/),
#          libcap2-bin (setcap: `make install` gives inclprof-perfmon its
#          capabilities)
#   test   what `make check` runs: Check, cppcheck, strace, python3 (CSV and
#          JSON checks), go (go tool pprof), valgrind (callgrind_annotate),
#          node and npm (the DevTools trace engine), cmake, chromium (headless:
#          the HTML and speedscope exports' tests), protobuf-compiler
#          (protoc --decode of the Perfetto export), man-db (the installed
#          man pages rendered), xz-utils and bzip2 (the source tarballs of
#          make peer-quick), the AArch64 cross compiler with its plugin
#          headers and qemu-user (cross_dev below), util-linux (setpriv:
#          the tests that run programs as two unprivileged users),
#          libjemalloc-dev (a program linked with the system's jemalloc)
#   bench  clang and LLVM XRay's runtime (scripts/llvm-version.sh), uftrace
#   stress what `make stress` adds: clang and libFuzzer's runtime, GNU time
#   field  what `make field` adds to test: redis-tools (redis-benchmark),
#          ninja, tcl (sqlite's amalgamation), googletest (leveldb's
#          db_bench; yaml-cpp's tests build it from /usr/src/googletest),
#          xz-utils, autoconf, automake, libtool, bison, flex and oniguruma
#          (jq), apache2-utils (ab, nginx's load), libasio-dev (the
#          coroutine server), libffi-dev (CPython's ctypes), tcl-dev
#          (SQLite's testfixture), valgrind
#          (callgrind, CPython's and fmt's counts), util-linux (runuser: PostgreSQL
#          runs as a system user), chromium (PostgreSQL's butterfly pane,
#          headless), time (GNU time: go tool pprof's peak memory); the source packages
#          themselves come through a private deb-src list
#          (tests/field/field.sh), /etc/apt untouched
#   peer   what `make peer` needs: test's packages (valgrind is the
#          oracle, python3 runs the driver, xz-utils and bzip2 unpack the GCC
#          and valgrind source tarballs; make check runs its quick subset);
#          the source packages come through scripts/debian-source.sh
set -eu
level=${1:-build}
case "$level" in build|test|bench|stress|field|peer) ;; *) echo "usage: scripts/deps.sh [build|test|bench|stress|field|peer]" >&2; exit 2 ;; esac
limit=${INCLPROF_APT_TIMEOUT:-1800}
gcc=${INCLPROF_GCC:-gcc}
# release_pkgs LEVEL: the packages whose names depend on the release
# (VERSION_CODENAME of /etc/os-release): LLVM's version (scripts/llvm-version.sh),
# and clang-format-14, the version the style is checked with (make lint), which
# Debian 13 no longer has (lint says it skipped the formatting check there).
release_pkgs() {
  llvm=$(sh "$(dirname "$0")/llvm-version.sh")
  format=""
  [ "$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null)" = bookworm ] && format=clang-format-14
  case "$1" in
    test|field|peer) echo "$format" ;;
    bench) echo "$format clang-$llvm llvm-$llvm libclang-rt-$llvm-dev" ;;
    stress) echo "clang-$llvm libclang-rt-$llvm-dev" ;;
  esac
}
pkgs="make libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libdeflate-dev pkg-config libdw-dev libelf-dev libiberty-dev libcapstone-dev go-md2man libcap2-bin"
case "$level" in
  test|bench|field|peer) pkgs="$pkgs check cppcheck strace mount python3 golang-go valgrind nodejs npm cmake man-db xz-utils bzip2 util-linux libjemalloc-dev" ;;
esac
case "$level" in
  test|bench|field) pkgs="$pkgs chromium protobuf-compiler" ;;
esac
case "$level" in
  bench) pkgs="$pkgs uftrace time" ;;
  stress) pkgs="$pkgs time" ;;
  field) pkgs="$pkgs chromium time redis-tools ninja-build tcl libgmock-dev libgtest-dev googletest xz-utils binutils autoconf automake libtool bison flex libonig-dev apache2-utils libasio-dev libffi-dev valgrind util-linux tcl-dev" ;;
esac
pkgs="$pkgs $(release_pkgs "$level")"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing_of() {
  m=""
  for p in "$@"; do
    [ -n "$p" ] || continue
    # NodeSource's nodejs ships npm itself and conflicts with Debian's npm package.
    [ "$p" = npm ] && command -v npm >/dev/null 2>&1 && continue
    installed "$p" || m="$m $p"
  done
  echo "$m"
}
# The compilers, and the plugin headers of the gcc that compiles the plugin:
# gcc-N of INCLPROF_GCC=gcc-N; else the gcc on PATH, or (no gcc yet) the
# version Debian's gcc package depends on.
plugin_dev() {
  case "$(basename "$gcc")" in
    gcc-[0-9]*) v=${gcc##*gcc-}; echo "gcc-$v g++-$v gcc-$v-plugin-dev"; return ;;
  esac
  if command -v gcc >/dev/null 2>&1; then v=$(gcc -dumpversion | cut -d. -f1)
  else v=$(apt-cache depends gcc 2>/dev/null | sed -n 's/^ *Depends: gcc-\([0-9][0-9]*\)$/\1/p' | head -n1); fi
  echo "gcc g++${v:+ gcc-$v-plugin-dev}"
}

# test: the AArch64 cross compiler of the plugin_dev GCC version, its plugin
# headers, its C library headers (libc6-dev-arm64-cross, only recommended
# by the compiler), and qemu-user (tests/integration/cross_aarch64.sh; the arm64
# builds of the runtime's libraries are unpacked into the build directory by
# scripts/arm64-libs.sh, no arm64 architecture added to dpkg).
cross_dev() {
  case "$level" in test|bench|field|peer) ;; *) return 0 ;; esac
  v=$(plugin_dev | sed -n 's/.*gcc-\([0-9][0-9]*\)-plugin-dev.*/\1/p')
  [ -z "$v" ] || echo "gcc-$v-aarch64-linux-gnu libc6-dev-arm64-cross gcc-$v-plugin-dev-aarch64-linux-gnu qemu-user"
}

export DEBIAN_FRONTEND=noninteractive
stamp=/var/lib/apt/periodic/inclprof-updated
# apt-get stays in the terminal's foreground process group (timeout
# --foreground): in a background group it would be stopped by SIGTTOU when it
# restores the terminal, and Ctrl-C would not reach it.
apt_run() { # apt_run WHAT ARGS...: apt-get ARGS with the time limit; one line on failure
  what=$1; shift
  timeout --foreground -k 10 "$limit" apt-get "$@" >&2 && return 0
  rc=$?
  if [ "$rc" = 124 ]; then why="timed out after ${limit}s"; else why="failed (exit $rc)"; fi
  echo "inclprof: apt-get $why fetching $what from the apt sources in /etc/apt; check the network or proxy and rerun 'scripts/deps.sh $level' (INCLPROF_APT_TIMEOUT=seconds sets the limit)" >&2
  exit 1
}
update_lists() {
  if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +720 2>/dev/null)" ] ||
     ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then
    echo "inclprof: updating the package lists (apt-get update)" >&2
    apt_run "the package lists" update -qq
    mkdir -p "$(dirname "$stamp")" && touch "$stamp"
  fi
}

# shellcheck disable=SC2086
missing=$(missing_of $pkgs $(plugin_dev) $(cross_dev))
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  plugin_dev | grep -q plugin-dev || missing="$missing gcc-N-plugin-dev (N: the major version of gcc)"
  echo "inclprof: missing Debian packages:$missing" >&2
  echo "inclprof: run as root: apt-get update && apt-get install -y --no-install-recommends$missing" >&2
  exit 1
fi
update_lists
# Without gcc the lists name the version its package brings.
# shellcheck disable=SC2086
missing=$(missing_of $pkgs $(plugin_dev) $(cross_dev))
for p in $missing; do
  if ! apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    echo "inclprof: $p is not in the package archive of this release (apt sources in /etc/apt; the GCC versions of each release: docs/guide.md, Install)" >&2
    exit 1
  fi
done
echo "inclprof: installing Debian packages:$missing" >&2
# shellcheck disable=SC2086
apt_run "${missing# }" install -y -qq --no-install-recommends $missing
# gcc installed above is the one whose plugin headers count.
# shellcheck disable=SC2046
missing=$(missing_of $(plugin_dev) $(cross_dev))
if [ -n "$missing" ]; then
  echo "inclprof: installing Debian packages:$missing" >&2
  # shellcheck disable=SC2086
  apt_run "${missing# }" install -y -qq --no-install-recommends $missing
fi
