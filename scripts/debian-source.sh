#!/bin/sh
# debian-source.sh CACHE [--suite SUITE] PACKAGE... - download Debian source
# packages (apt-get source --download-only: the .dsc, the upstream tarball,
# the Debian changes) into CACHE, once each.  The mirror is the one this
# machine's apt uses (scripts/apt-mirror.sh); the suite is this machine's
# release unless --suite names another.  apt-get runs with a private state in
# CACHE (a deb-src list of its own and its lists), so the system's apt
# sources and lists stay as they are; apt's configuration (proxies) applies.
# INCLPROF_APT_TIMEOUT limits each apt-get run (seconds, default 600).
# A package counts as present when its .dsc and every file the .dsc lists
# are in CACHE; a download that failed part-way is removed.
# Exit status: 0 all present, 1 a download failed (one line on stderr names
# the package, the mirror and the log; the log is CACHE/fetch-PACKAGE.log).
set -eu
here=$(dirname "$0")
. "$here/apt-mirror.sh"
cache=${1:?usage: scripts/debian-source.sh CACHE [--suite SUITE] PACKAGE...}
shift
suite=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null)
if [ "${1:-}" = --suite ]; then suite=${2:?--suite needs a name}; shift 2; fi
[ $# -gt 0 ] || { echo "usage: scripts/debian-source.sh CACHE [--suite SUITE] PACKAGE..." >&2; exit 2; }
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
limit=${INCLPROF_APT_TIMEOUT:-600}
# Each suite keeps its own lists: a cache shared by callers of two suites
# never reads one's index for the other.
state=$cache/apt-$suite
updated=""
# present PACKAGE: its .dsc is in the cache with every file it lists
present() {
  for dsc in "$cache/$1"_*.dsc; do
    [ -f "$dsc" ] || return 1
    for f in $(awk '/^Files:/ { on = 1; next } /^[^ ]/ { on = 0 } on && NF == 3 { print $3 }' "$dsc"); do
      [ -f "$cache/$f" ] || return 1
    done
  done
}
for pkg in "$@"; do
  present "$pkg" && continue
  mirror=$(apt_mirror_or_die debian-source.sh)
  mkdir -p "$state/parts" "$state/lists/partial"
  printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" "$suite" >"$state/parts/src.sources"
  apt="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$state/parts -o Dir::State::Lists=$state/lists -o APT::Sandbox::User=root"
  log=$cache/fetch-$pkg.log
  echo "debian-source.sh: fetching the Debian source package $pkg of $suite from $mirror (once)" >&2
  rc=0
  # shellcheck disable=SC2086
  (cd "$cache" &&
    { [ -n "$updated" ] || timeout --foreground -k 10 "$limit" apt-get $apt update -qq; } &&
    timeout --foreground -k 10 "$limit" apt-get $apt source --download-only "$pkg") >"$log" 2>&1 || rc=$?
  present "$pkg" || { [ "$rc" -ne 0 ] || rc=1; }
  if [ "$rc" -ne 0 ]; then
    rm -f "$cache/${pkg}"_*.dsc
    if [ "$rc" = 124 ]; then why="timed out after ${limit}s (INCLPROF_APT_TIMEOUT sets the limit)"; else why="failed (exit $rc)"; fi
    echo "debian-source.sh: apt-get source $pkg ($suite) from $mirror $why: see $log; check that the mirror is reachable from here, then rerun" >&2
    exit 1
  fi
  updated=1
done
