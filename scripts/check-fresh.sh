#!/bin/sh
# check-fresh.sh - `make check-fresh`: the README's quick start on a bare
# Debian 12.  Builds (once, then cached) a minimal bookworm root with
# mmdebstrap (variant apt, plus git, make, ca-certificates), copies in this
# machine's apt and npm configuration and CA certificates so the same package
# sources are reachable, clones this checkout's committed HEAD into it (with
# the sibling shared folder beside it, as in CI), and runs `make demo`,
# `make check` (each in a pseudo-terminal, as a person types them) and
# `make demo` again (which must install nothing) in it as
# root.  Prints one summary line; /proc, /sys and /dev are always
# unmounted, also when interrupted.
# Exit status: 0 passed, 1 failed, 2 could not run here (not root, no
# mmdebstrap, chroot or mounts refused); with INCLPROF_FRESH_SKIP_OK=1 the
# last case prints "check-fresh: skipped: REASON" and exits 0 (CI).
# Environment: INCLPROF_FRESH_CACHE (root tarballs and logs, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/inclprof/fresh), INCLPROF_FRESH_TIMEOUT
# (seconds for demo + check, default 3600), INCLPROF_FRESH_REBUILD=1 (new
# root tarball), INCLPROF_FRESH_KEEP=1 (leave the root directory for a look).
set -u
me="check-fresh"
src=$(cd "$(dirname "$0")/.." && pwd)
cache=${INCLPROF_FRESH_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/inclprof/fresh}
limit=${INCLPROF_FRESH_TIMEOUT:-3600}
root="" mounted=""

skip() {
  if [ "${INCLPROF_FRESH_SKIP_OK:-0}" = 1 ]; then echo "$me: skipped: $*"; exit 0; fi
  echo "$me: cannot run here: $*" >&2; exit 2
}
die() { echo "$me: FAILED: $*" >&2; exit 1; }

# in_root: the processes whose root directory is the fresh root
in_root() {
  for p in /proc/[0-9]*; do [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"; done
}
cleanup() {
  trap - EXIT INT TERM HUP
  if [ -n "${job:-}" ]; then  # stop everything running in the root, before unmounting
    kill -TERM "-$job" 2>/dev/null
    n=0; while [ -n "$(in_root)" ] && [ $n -lt 20 ]; do sleep 0.5; n=$((n + 1)); done
    # shellcheck disable=SC2046
    kill -KILL $(in_root) 2>/dev/null; wait "$job" 2>/dev/null
    n=0; while [ -n "$(in_root)" ] && [ $n -lt 20 ]; do sleep 0.5; n=$((n + 1)); done
  fi
  for m in $mounted; do umount -R "$m" 2>/dev/null || umount -lR "$m" 2>/dev/null; done
  if [ -n "$root" ] && [ -d "$root" ]; then
    if grep -q " $root/" /proc/self/mountinfo; then
      echo "$me: mounts left under $root: not removing it (umount -R them, then rm -rf it)" >&2
    elif [ "${INCLPROF_FRESH_KEEP:-0}" = 1 ]; then
      echo "$me: root left in $root" >&2
    else
      rm -rf "$root"
    fi
  fi
}
trap cleanup EXIT
trap 'echo "$me: interrupted" >&2; exit 130' INT TERM HUP

[ "$(id -u)" = 0 ] || skip "needs root (chroot, mounts)"
if ! command -v mmdebstrap >/dev/null 2>&1; then
  echo "$me: installing mmdebstrap" >&2
  get() { DEBIAN_FRONTEND=noninteractive timeout --foreground -k 10 600 apt-get install -y -qq --no-install-recommends mmdebstrap >&2; }
  get || { timeout --foreground -k 10 600 apt-get update -qq >&2 && get; } ||
    skip "mmdebstrap cannot be installed (apt-get install mmdebstrap failed or timed out)"
fi
mkdir -p "$cache" || die "cannot create $cache"
exec 9>"$cache/lock"
flock -n 9 || die "another check-fresh is running (it holds $cache/lock)"
# Roots left by a run that was killed outright: unmount and remove them.
for old in "$cache"/root.*; do
  [ -d "$old" ] || continue
  for m in proc sys dev; do umount -R "$old/$m" 2>/dev/null || umount -lR "$old/$m" 2>/dev/null; done
  grep -q " $old/" /proc/self/mountinfo || rm -rf "$old"
done

# Mounts and chroot must be allowed at all (some containers refuse them).
probe=$(mktemp -d "$cache/probe.XXXXXX")
if ! mount -t tmpfs none "$probe" 2>/dev/null; then rmdir "$probe"; skip "the environment refuses mounts"; fi
umount "$probe"; rmdir "$probe"

# The root tarball, keyed by the suite, the added packages and the apt sources.
sources=""
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && grep -q '^[^#]' "$f" && sources="$sources $f"
done
[ -n "$sources" ] || die "no apt sources on this machine (/etc/apt/sources.list*)"
include=git,make,ca-certificates
# shellcheck disable=SC2086
key=$( { echo "bookworm apt $include"; cat $sources; } | sha256sum | cut -c1-12)
tarball=$cache/bookworm-apt-$key.tar
if [ ! -s "$tarball" ] || [ "${INCLPROF_FRESH_REBUILD:-0}" = 1 ]; then
  echo "$me: building a minimal Debian 12 root with mmdebstrap (variant apt + $include)" >&2
  aptopts=""
  for f in /etc/apt/apt.conf.d/*; do [ -f "$f" ] && aptopts="$aptopts --aptopt=$f"; done
  # shellcheck disable=SC2086
  timeout 1800 mmdebstrap --quiet --format=tar --variant=apt --include="$include" $aptopts bookworm "$tarball.part" $sources \
    </dev/null >"$cache/mmdebstrap.log" 2>&1 ||
    die "mmdebstrap could not build the root (log: $cache/mmdebstrap.log; retry: make check-fresh)"
  mv "$tarball.part" "$tarball"
fi

root=$(mktemp -d "$cache/root.XXXXXX") && chmod 755 "$root"
tar -C "$root" -xf "$tarball" || die "cannot unpack $tarball"
chroot "$root" /bin/true 2>/dev/null || skip "the environment refuses chroot"

# This machine's package-manager configuration, so the same sources are reachable.
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
cp /etc/hosts "$root/etc/hosts" 2>/dev/null
rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*  # mmdebstrap's copy of the same sources
for d in /etc/apt/sources.list.d /etc/apt/apt.conf.d /etc/apt/trusted.gpg.d /etc/apt/keyrings /etc/apt/preferences.d; do
  [ -d "$d" ] && mkdir -p "$root$d" && cp -a "$d/." "$root$d/"
done
[ -f /etc/apt/sources.list ] && cp -a /etc/apt/sources.list "$root/etc/apt/"
# shellcheck disable=SC2086
for k in $(sed -n 's/^ *Signed-By: *\(\/[^ ]*\).*/\1/p; s/.*signed-by=\(\/[^] ]*\).*/\1/p' $sources | sort -u); do
  [ -f "$k" ] && [ ! -e "$root$k" ] && mkdir -p "$root$(dirname "$k")" && cp "$k" "$root$k"
done
mkdir -p "$root/etc/ssl/certs" && cp -a /etc/ssl/certs/. "$root/etc/ssl/certs/"
if [ -d /usr/local/share/ca-certificates ]; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
npmrcs="/etc/npmrc ${HOME:-/root}/.npmrc"
command -v npm >/dev/null 2>&1 && npmrcs="$npmrcs $(npm config get globalconfig 2>/dev/null)"
for f in $npmrcs; do
  case $f in "${HOME:-/root}/.npmrc") to=/root/.npmrc ;; *) to=$f ;; esac
  [ -f "$f" ] && mkdir -p "$root$(dirname "$to")" && cp "$f" "$root$to"
done

# The repository at its committed HEAD.  CI runs a clone with a folder named
# "shared" next to it (outside this repository); when this checkout has one,
# the root gets the same layout.
head=$(git -C "$src" rev-parse HEAD) || die "$src is not a git checkout"
mkdir -p "$root/work"
git clone -q --no-checkout "$src" "$root/work/inclprof" && git -C "$root/work/inclprof" checkout -q --detach "$head" ||
  die "cannot clone $src into the root"
sibling=$(dirname "$(cd "$src" && pwd)")/shared
[ -d "$sibling" ] && cp -a "$sibling" "$root/work/shared"

for m in proc sys dev; do
  mount --rbind "/$m" "$root/$m" || skip "the environment refuses to mount /$m into the root"
  mount --make-rslave "$root/$m"
  mounted="$root/$m $mounted"
done

log=$cache/check-fresh.log
echo "$me: running make demo, then make check, in the fresh root at $head (log: $log)" >&2
# In its own session, so that an interrupt can stop everything it started.
setsid -w timeout "$limit" chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=xterm \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  sh -c 'cd /work/inclprof || exit 1
         step() { name=$1; shift; t0=$(date +%s); "$@"; rc=$?
                  echo "check-fresh-status $name $rc $(( $(date +%s) - t0 ))"; }
         step demo script -qec "make demo" /dev/null
         step check script -qec "make check" /dev/null
         step again sh -c "make demo >/tmp/demo-again.log 2>&1"
         cat /tmp/demo-again.log
         echo "check-fresh-installs $(grep -c "installing Debian packages" /tmp/demo-again.log)"' >"$log" 2>&1 </dev/null &
job=$!
wait "$job"; rc=$?
job=""
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
  echo "$me: PASSED in a fresh Debian 12 root: make demo and make check exit 0 ($figures), a second make demo installs nothing ($took)"
  exit 0
fi
echo "$me: FAILED in a fresh Debian 12 root: make demo exit ${demo:-none}, make check exit ${check:-none} ($figures), second make demo exit ${again:-none} with ${installs:-?} installs ($took; failures: grep -E '^FAIL|Error' $log)"
exit 1
