#!/bin/sh
# deps.sh - make sure the Debian packages inclprof needs are installed.
# As root it installs what is missing (apt-get update once, then install -y);
# otherwise it prints the exact command to run and fails.
# Usage: scripts/deps.sh [build|test|bench]   (each level includes the previous)
set -eu
level=${1:-build}
gccver=$(gcc -dumpversion | cut -d. -f1)
pkgs="gcc g++-$gccver gcc-$gccver-plugin-dev make libprotobuf-c-dev protobuf-c-compiler zlib1g-dev pkg-config check"
case "$level" in
  test|bench) pkgs="$pkgs golang-go valgrind nodejs npm python3 cppcheck binutils cmake" ;;
esac
case "$level" in
  bench) pkgs="$pkgs clang-14 llvm-14 libclang-rt-14-dev uftrace" ;;
esac
# stress (make stress, on top of build): libFuzzer's clang and GNU time
case "$level" in
  stress) pkgs="$pkgs clang-14 libclang-rt-14-dev time" ;;
esac
missing=""
for p in $pkgs; do
  # NodeSource's nodejs ships npm itself and conflicts with Debian's npm package.
  [ "$p" = npm ] && command -v npm >/dev/null 2>&1 && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "inclprof: missing Debian packages:$missing" >&2
  echo "inclprof: run as root: apt-get update && apt-get install -y$missing" >&2
  exit 1
fi
echo "inclprof: installing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
stamp=/var/lib/apt/periodic/inclprof-updated
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +720 2>/dev/null)" ]; then
  apt-get update -qq >&2
  mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
