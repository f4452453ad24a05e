# fresh-root.sh - minimal Debian roots for check-fresh.sh and check-gcc.sh
# (sourced, POSIX sh; the caller sets `me`, used in messages).  A root of a
# release (bookworm, trixie, sid...) is built once with mmdebstrap (variant
# apt plus a few packages) into a cached tarball, then unpacked afresh for
# every run, given this machine's apt configuration, CA certificates and
# name service (so the same archive is reachable), the release's Debian
# sources, and /proc, /sys and /dev; fr_cleanup stops what runs in it,
# unmounts and removes it.
# Exit status of the callers: fr_die exits 1, fr_skip 2 (or 0 with "skipped"
# when INCLPROF_FRESH_SKIP_OK=1: CI).
. "$src/scripts/apt-mirror.sh"
root="" mounted="" job=""

fr_skip() {
  if [ "${INCLPROF_FRESH_SKIP_OK:-0}" = 1 ]; then echo "$me: skipped: $*"; exit 0; fi
  echo "$me: cannot run here: $*" >&2; exit 2
}
fr_die() { echo "$me: FAILED: $*" >&2; exit 1; }

# fr_in_root: the processes whose root directory is the current root
fr_in_root() {
  for p in /proc/[0-9]*; do [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"; done
}

# fr_release: stop everything running in the root, unmount and remove it
# (INCLPROF_FRESH_KEEP=1 leaves it for a look).
fr_release() {
  if [ -n "$job" ]; then
    kill -TERM "-$job" 2>/dev/null
    n=0; while [ -n "$(fr_in_root)" ] && [ $n -lt 20 ]; do sleep 0.5; n=$((n + 1)); done
    # shellcheck disable=SC2046
    kill -KILL $(fr_in_root) 2>/dev/null; wait "$job" 2>/dev/null
    n=0; while [ -n "$(fr_in_root)" ] && [ $n -lt 20 ]; do sleep 0.5; n=$((n + 1)); done
    job=""
  fi
  for m in $mounted; do umount -R "$m" 2>/dev/null || umount -lR "$m" 2>/dev/null; done
  mounted=""
  if [ -n "$root" ] && [ -d "$root" ]; then
    if grep -q " $root/" /proc/self/mountinfo; then
      echo "$me: mounts left under $root: not removing it (umount -R them, then rm -rf it)" >&2
    elif [ "${INCLPROF_FRESH_KEEP:-0}" = 1 ]; then
      echo "$me: root left in $root" >&2
    else
      rm -rf "$root"
    fi
  fi
  root=""
}
fr_cleanup() { trap - EXIT INT TERM HUP; fr_release; }

# fr_prepare CACHE: root user, mmdebstrap (installed if missing), the cache
# directory locked for this caller, roots of killed runs removed, mounts allowed.
fr_prepare() {
  cache=$1
  trap fr_cleanup EXIT
  trap 'echo "$me: interrupted" >&2; exit 130' INT TERM HUP
  [ "$(id -u)" = 0 ] || fr_skip "needs root (chroot, mounts)"
  if ! command -v mmdebstrap >/dev/null 2>&1; then
    echo "$me: installing mmdebstrap" >&2
    get() { DEBIAN_FRONTEND=noninteractive timeout --foreground -k 10 600 apt-get install -y -qq --no-install-recommends mmdebstrap >&2; }
    get || { timeout --foreground -k 10 600 apt-get update -qq >&2 && get; } ||
      fr_skip "mmdebstrap cannot be installed (apt-get install mmdebstrap failed or timed out)"
  fi
  mkdir -p "$cache" || fr_die "cannot create $cache"
  exec 9>"$cache/lock"
  flock -n 9 || fr_die "another $me is running (it holds $cache/lock)"
  for old in "$cache"/root.*; do
    [ -d "$old" ] || continue
    for m in proc sys dev; do umount -R "$old/$m" 2>/dev/null || umount -lR "$old/$m" 2>/dev/null; done
    grep -q " $old/" /proc/self/mountinfo || rm -rf "$old"
  done
  probe=$(mktemp -d "$cache/probe.XXXXXX")
  if ! mount -t tmpfs none "$probe" 2>/dev/null; then rmdir "$probe"; fr_skip "the environment refuses mounts"; fi
  umount "$probe"; rmdir "$probe"
}

# fr_host_sources: this machine's apt source files that list something
fr_host_sources() { apt_source_files; }
fr_host_release() { sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null; }

# fr_sources RELEASE FILE: the Debian sources of RELEASE as a deb822 file: the
# Debian mirror this machine uses (scripts/apt-mirror.sh; none is an error),
# RELEASE and, except for sid, RELEASE-updates and the security suite when
# this machine has a .../debian-security mirror.
fr_sources() {
  mirror=$(apt_debian_mirror)
  [ -n "$mirror" ] || fr_die "no Debian mirror in this machine's apt sources (/etc/apt/sources.list*: no URI ending in /debian): add the one apt should use"
  security=$(apt_security_mirror)
  suites=$1
  [ "$1" = sid ] || suites="$1 $1-updates"
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" "$suites" >"$2"
  if [ "$1" != sid ] && [ -n "$security" ]; then
    printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$security" "$1" >>"$2"
  fi
}

# fr_tarball RELEASE INCLUDE: the cached root tarball of RELEASE (variant apt
# plus the comma-separated INCLUDE packages), built when missing or when
# INCLPROF_FRESH_REBUILD=1; its path on stdout.  The release of this machine
# uses this machine's sources, another release fr_sources.
fr_tarball() {
  if [ "$1" = "$(fr_host_release)" ]; then
    srcs=$(fr_host_sources | tr '\n' ' ')
    [ -n "$srcs" ] || fr_die "no apt sources on this machine (/etc/apt/sources.list*)"
  else
    fr_sources "$1" "$cache/$1.sources"
    srcs=$cache/$1.sources
  fi
  # shellcheck disable=SC2086
  key=$( { echo "$1 apt $2"; cat $srcs; } | sha256sum | cut -c1-12)
  tarball=$cache/$1-apt-$key.tar
  if [ ! -s "$tarball" ] || [ "${INCLPROF_FRESH_REBUILD:-0}" = 1 ]; then
    echo "$me: building a minimal Debian $1 root with mmdebstrap (variant apt + $2)" >&2
    aptopts=""
    for f in /etc/apt/apt.conf.d/*; do [ -f "$f" ] && aptopts="$aptopts --aptopt=$f"; done
    # shellcheck disable=SC2086
    timeout 1800 mmdebstrap --quiet --format=tar --variant=apt --include="$2" $aptopts "$1" "$tarball.part" $srcs \
      </dev/null >"$cache/mmdebstrap-$1.log" 2>&1 ||
      fr_die "mmdebstrap could not build the $1 root (log: $cache/mmdebstrap-$1.log)"
    mv "$tarball.part" "$tarball"
  fi
  echo "$tarball"
}

# fr_unpack TARBALL RELEASE: a new root ($root) from TARBALL with this
# machine's apt configuration, keys, CA certificates and name service, and
# RELEASE's sources (this machine's own when it runs RELEASE).
fr_unpack() {
  root=$(mktemp -d "$cache/root.XXXXXX") && chmod 755 "$root"
  tar -C "$root" -xf "$1" || fr_die "cannot unpack $1"
  chroot "$root" /bin/true 2>/dev/null || fr_skip "the environment refuses chroot"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
  cp /etc/hosts "$root/etc/hosts" 2>/dev/null
  rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*
  for d in /etc/apt/apt.conf.d /etc/apt/trusted.gpg.d /etc/apt/keyrings /etc/apt/preferences.d; do
    [ -d "$d" ] && mkdir -p "$root$d" && cp -a "$d/." "$root$d/"
  done
  srcs=$(fr_host_sources)
  if [ "$2" = "$(fr_host_release)" ]; then
    mkdir -p "$root/etc/apt/sources.list.d" && cp -a /etc/apt/sources.list.d/. "$root/etc/apt/sources.list.d/"
    [ -f /etc/apt/sources.list ] && cp -a /etc/apt/sources.list "$root/etc/apt/"
  else
    fr_sources "$2" "$root/etc/apt/sources.list.d/debian.sources"
  fi
  # shellcheck disable=SC2086
  for k in $(sed -n 's/^ *Signed-By: *\(\/[^ ]*\).*/\1/p; s/.*signed-by=\(\/[^] ]*\).*/\1/p' $srcs | sort -u); do
    [ -f "$k" ] && [ ! -e "$root$k" ] && mkdir -p "$root$(dirname "$k")" && cp "$k" "$root$k"
  done
  mkdir -p "$root/etc/ssl/certs" && cp -a /etc/ssl/certs/. "$root/etc/ssl/certs/"
  if [ -d /usr/local/share/ca-certificates ]; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
  fi
}

# fr_mount: /proc, /sys and /dev of this machine in the root
fr_mount() {
  for m in proc sys dev; do
    mount --rbind "/$m" "$root/$m" || fr_skip "the environment refuses to mount /$m into the root"
    mount --make-rslave "$root/$m"
    mounted="$root/$m $mounted"
  done
}

# fr_run LOG LIMIT SCRIPT: SCRIPT run by sh as root in the root, in a session
# of its own (so that an interrupt stops everything it started), with a clean
# environment, at most LIMIT seconds, its output in LOG; returns its status
# (124: timed out).  The cache's lock descriptor (9) stays out of the root:
# the programs the tests run there get the descriptors they would get
# elsewhere (runtime_fd_reserve.sh counts them).
fr_run() {
  setsid -w timeout "$2" chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=xterm \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin sh -c "$3" >"$1" 2>&1 </dev/null 9>&- &
  job=$!
  wait "$job"; rc=$?
  job=""
  return $rc
}
