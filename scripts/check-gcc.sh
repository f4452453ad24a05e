#!/bin/sh
# check-gcc.sh - `make check-gcc`: the plugin with every GCC it supports.  For
# each version (INCLPROF_GCC_VERSIONS, default "11 12 13 14 15 16"), in a
# fresh minimal root of the Debian release that ships it (11: bookworm;
# 12, 13, 14: trixie; 15, 16: sid; roots from scripts/fresh-root.sh, their
# tarballs cached), scripts/deps.sh installs that GCC with its plugin headers
# and the build packages, `make GCC=gcc-N` builds the plugin, the runtime,
# the command and the examples with it, and the plugin, runtime and example
# integration tests run with gcc-N as gcc (tests/integration/plugin_*.sh,
# runtime_*.sh, examples_*.sh).  One summary line per version, then one in
# total; downloaded packages are kept in the cache for the next run.
# Exit status: 0 all passed, 1 a version failed, 2 could not run here (as
# check-fresh.sh; INCLPROF_FRESH_SKIP_OK=1 makes that a "skipped" line and 0).
# Environment: INCLPROF_GCC_VERSIONS, INCLPROF_GCC_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/inclprof/gcc), INCLPROF_GCC_TIMEOUT
# (seconds per version, default 1800), INCLPROF_FRESH_REBUILD=1,
# INCLPROF_FRESH_KEEP=1 (as check-fresh.sh).
set -u
me="check-gcc"
src=$(cd "$(dirname "$0")/.." && pwd)
versions=${INCLPROF_GCC_VERSIONS:-11 12 13 14 15 16}
limit=${INCLPROF_GCC_TIMEOUT:-1800}
. "$src/scripts/fresh-root.sh"

release_of() {
  case $1 in
    11) echo bookworm ;;
    12|13|14) echo trixie ;;
    15|16) echo sid ;;
    *) return 1 ;;
  esac
}
for v in $versions; do
  release_of "$v" >/dev/null || { echo "$me: no Debian release known for GCC '$v' (supported: 11 to 16)" >&2; exit 2; }
done

fr_prepare "${INCLPROF_GCC_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/inclprof/gcc}"
head=$(git -C "$src" rev-parse HEAD) || fr_die "$src is not a git checkout"
git -C "$src" archive --format=tar --prefix=inclprof/ -o "$cache/src.tar" "$head" ||
  fr_die "cannot archive $src at $head"

# The steps in the root, for GCC $V.  gcc-$V is `gcc` there for the tests
# (a directory of links first on PATH); lua5.4's source package is fetched
# once into the cache (plugin_debian_lua.sh); python3, strace, file, cmake,
# valgrind (callgrind's counts, plugin_libcalls.sh), protoc (the coroutine
# operations' trace checks) and libjemalloc-dev (runtime_alloc_lib.sh) are
# what those tests use besides the build packages.
steps='cd /work/inclprof || exit 1
step() { name=$1; shift; t0=$(date +%s); "$@"; rc=$?
         echo "check-gcc-status $name $rc $(( $(date +%s) - t0 ))"; [ "$rc" = 0 ]; }
INCLPROF_APT_TIMEOUT=900 step deps make --no-print-directory GCC=gcc-$V build/.deps-build || exit 1
mkdir -p /opt/gcc/bin
for t in gcc g++ cpp gcc-ar gcc-nm gcc-ranlib; do ln -sf /usr/bin/$t-$V /opt/gcc/bin/$t; done
ln -sf /usr/bin/gcc-$V /opt/gcc/bin/cc; ln -sf /usr/bin/g++-$V /opt/gcc/bin/c++
export PATH=/opt/gcc/bin:$PATH
echo "check-gcc-version $(gcc -dumpfullversion) $(gcc -print-file-name=plugin)"
step build make --no-print-directory -j2 GCC=gcc-$V build-all examples || exit 1
apt-get install -y -qq --no-install-recommends python3 strace file cmake valgrind protobuf-compiler libjemalloc-dev >/dev/null 2>&1
step tests env INCLPROF=$PWD/build/inclprof INCLPROF_PLUGIN=$PWD/build/inclprof.so \
  INCLPROF_LIBDIR=$PWD/build INCLPROF_SRC=$PWD \
  sh tests/run-integration.sh tests/integration/plugin_*.sh tests/integration/runtime_*.sh tests/integration/examples_*.sh'

failed=0 t_all=$(date +%s)
for v in $versions; do
  release=$(release_of "$v")
  t0=$(date +%s)
  tarball=$(fr_tarball "$release" make,ca-certificates) || exit 1
  fr_unpack "$tarball" "$release"
  mkdir -p "$root/work" && tar -C "$root/work" -xf "$cache/src.tar" || fr_die "cannot unpack the sources"
  mkdir -p "$cache/debian-src" "$root/work/inclprof/build"
  ln -s /work/debian-src "$root/work/inclprof/build/debian-src"
  fr_mount
  for d in debian-src "archives-$release"; do
    mkdir -p "$cache/$d/partial"
    case $d in archives-*) to=$root/var/cache/apt/archives ;; *) to=$root/work/debian-src ;; esac
    mkdir -p "$to" && mount --bind "$cache/$d" "$to" && mounted="$to $mounted" ||
      fr_die "cannot mount $cache/$d into the root"
  done
  log=$cache/check-gcc-$v.log
  echo "$me: GCC $v in a fresh $release root at $head (log: $log)" >&2
  fr_run "$log" "$limit" "V=$v; $steps"
  rc=$?
  fr_release
  secs=$(( $(date +%s) - t0 ))
  status() { sed -n "s/^check-gcc-status $1 \([0-9]*\) .*/\1/p" "$log"; }
  got=$(sed -n 's/^check-gcc-version \([^ ]*\) .*/\1/p' "$log")
  figures=$(grep -E '^integration: [0-9]+ passed, [0-9]+ failed' "$log")
  if [ "$rc" = 0 ]; then
    echo "$me: GCC $v ($release, gcc ${got:-?}): PASSED: $figures (${secs}s)"
  else
    failed=$((failed + 1))
    why="deps exit $(status deps), build exit $(status build), tests exit $(status tests)"
    [ "$rc" = 124 ] && why="timed out after ${limit}s; $why"
    scripts=$(sed -n 's/^failed scripts://p' "$log")
    echo "$me: GCC $v ($release, gcc ${got:-?}): FAILED: $why${figures:+; $figures}${scripts:+; failed:$scripts} (${secs}s; log: $log)"
  fi
done
n=$(echo "$versions" | wc -w)
took=$(( $(date +%s) - t_all ))
if [ "$failed" = 0 ]; then
  echo "$me: PASSED: GCC $(echo "$versions" | tr ' ' ','), each in a fresh Debian root ($took s)"
  exit 0
fi
echo "$me: FAILED: $failed of $n GCC versions ($took s)"
exit 1
