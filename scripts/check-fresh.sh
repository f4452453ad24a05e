#!/bin/sh
# check-fresh.sh - `make check-fresh`: the README's quick start on a bare
# Debian: bookworm (Debian 12) unless INCLPROF_FRESH_RELEASE names another
# release (trixie: Debian 13).  Builds (once, then cached) a minimal root of
# that release with mmdebstrap (variant apt, plus git, make,
# ca-certificates; scripts/fresh-root.sh), with this machine's apt
# configuration, npm configuration and CA certificates so the same package
# sources are reachable, clones this checkout's committed HEAD into it (with
# the sibling shared folder beside it, as in CI), and runs `make demo`,
# `make check` (each in a pseudo-terminal, as a person types them) and
# `make demo` again (which must install nothing) in it as
# root.  Prints one summary line; /proc, /sys and /dev are always
# unmounted, also when interrupted.
# Exit status: 0 passed, 1 failed, 2 could not run here (not root, no
# mmdebstrap, chroot or mounts refused); with INCLPROF_FRESH_SKIP_OK=1 the
# last case prints "check-fresh: skipped: REASON" and exits 0 (CI).
# Environment: INCLPROF_FRESH_RELEASE (bookworm), INCLPROF_FRESH_CACHE (root
# tarballs and logs, default ${XDG_CACHE_HOME:-$HOME/.cache}/inclprof/fresh),
# INCLPROF_FRESH_TIMEOUT (seconds for demo + check, default 3600),
# INCLPROF_FRESH_REBUILD=1 (new root tarball), INCLPROF_FRESH_KEEP=1 (leave
# the root directory for a look).
set -u
me="check-fresh"
src=$(cd "$(dirname "$0")/.." && pwd)
release=${INCLPROF_FRESH_RELEASE:-bookworm}
limit=${INCLPROF_FRESH_TIMEOUT:-3600}
case $release in
  bookworm) name="Debian 12" ;;
  trixie) name="Debian 13" ;;
  *) name="Debian $release" ;;
esac
. "$src/scripts/fresh-root.sh"
fr_prepare "${INCLPROF_FRESH_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/inclprof/fresh}"
tarball=$(fr_tarball "$release" git,make,ca-certificates) || exit 1
fr_unpack "$tarball" "$release"
npmrcs="/etc/npmrc ${HOME:-/root}/.npmrc"
command -v npm >/dev/null 2>&1 && npmrcs="$npmrcs $(npm config get globalconfig 2>/dev/null)"
for f in $npmrcs; do
  case $f in "${HOME:-/root}/.npmrc") to=/root/.npmrc ;; *) to=$f ;; esac
  [ -f "$f" ] && mkdir -p "$root$(dirname "$to")" && cp "$f" "$root$to"
done

# The repository at its committed HEAD.  CI runs a clone with a folder named
# "shared" next to it (outside this repository); when this checkout has one,
# the root gets the same layout.
head=$(git -C "$src" rev-parse HEAD) || fr_die "$src is not a git checkout"
mkdir -p "$root/work"
git clone -q --no-checkout "$src" "$root/work/inclprof" && git -C "$root/work/inclprof" checkout -q --detach "$head" ||
  fr_die "cannot clone $src into the root"
sibling=$(dirname "$(cd "$src" && pwd)")/shared
[ -d "$sibling" ] && cp -a "$sibling" "$root/work/shared"

fr_mount

log=$cache/check-fresh-$release.log
echo "$me: running make demo, then make check, in a fresh $name root at $head (log: $log)" >&2
fr_run "$log" "$limit" 'cd /work/inclprof || exit 1
         step() { name=$1; shift; t0=$(date +%s); "$@"; rc=$?
                  echo "check-fresh-status $name $rc $(( $(date +%s) - t0 ))"; }
         step demo script -qec "make demo" /dev/null
         step check script -qec "make check" /dev/null
         step again sh -c "make demo >/tmp/demo-again.log 2>&1"
         cat /tmp/demo-again.log
         echo "check-fresh-installs $(grep -c "installing Debian packages" /tmp/demo-again.log)"'
rc=$?
status() { sed -n "s/^check-fresh-status $1 \([0-9]*\) .*/\1/p" "$log"; }
secs() { sed -n "s/^check-fresh-status $1 [0-9]* \([0-9]*\)$/\1/p" "$log"; }
demo=$(status demo) check=$(status check) again=$(status again)
installs=$(sed -n 's/^check-fresh-installs //p' "$log")
figures=$(grep -E '^(unit|integration): [0-9]+ passed, [0-9]+ failed' "$log" | awk '{ printf "%s%s", (NR > 1 ? "; " : ""), $0 }')
took="make demo $(secs demo)s, make check $(secs check)s, make demo again $(secs again)s; log: $log"
if [ "$rc" = 124 ]; then
  echo "$me: FAILED: timed out after ${limit}s (demo: ${demo:-unfinished}, check: ${check:-unfinished}; $figures; log: $log)"
  exit 1
fi
if [ "$demo" = 0 ] && [ "$check" = 0 ] && [ "$again" = 0 ] && [ "$installs" = 0 ]; then
  echo "$me: PASSED in a fresh $name root: make demo and make check exit 0 ($figures), a second make demo installs nothing ($took)"
  exit 0
fi
echo "$me: FAILED in a fresh $name root: make demo exit ${demo:-none}, make check exit ${check:-none} ($figures), second make demo exit ${again:-none} with ${installs:-?} installs ($took; failures: grep -E '^FAIL|Error' $log)"
exit 1
