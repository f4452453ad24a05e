# apt-mirror.sh - sourced (POSIX sh): the Debian mirror this machine's apt
# uses, so that scripts fetching packages of their own (fresh roots, source
# packages, the arm64 libraries) go where the machine's apt goes.  Both
# source formats are read: one-line `deb`/`deb-src` entries in
# /etc/apt/sources.list and sources.list.d/*.list, and deb822 `URIs:` fields
# in sources.list.d/*.sources.  apt's own configuration (proxies in
# apt.conf.d) applies to every apt-get the callers run.
#   apt_source_files        the source files that list something, one a line
#   apt_mirror_uris         every URI they name, one a line
#   apt_debian_mirror       the first URI of the Debian archive (ends in /debian)
#   apt_security_mirror     the first URI of Debian's security archive, if any
#   apt_mirror_or_die WHO   apt_debian_mirror, or a one-line message and exit 1
# APT_ETC (default /etc/apt) is where the sources are read.

apt_source_files() {
  for f in "${APT_ETC:-/etc/apt}/sources.list" "${APT_ETC:-/etc/apt}"/sources.list.d/*.list \
    "${APT_ETC:-/etc/apt}"/sources.list.d/*.sources; do
    [ -f "$f" ] && grep -q '^[^#]' "$f" && echo "$f"
  done
  return 0
}

apt_mirror_uris() {
  apt_source_files | while read -r f; do
    case $f in
    *.sources) sed -n 's/^[[:space:]]*URIs:[[:space:]]*//p' "$f" | tr ' \t' '\n\n' ;;
    *) sed -n 's/^[[:space:]]*deb\(-src\)\{0,1\}[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*\).*/\3/p' "$f" ;;
    esac
  done | sed '/^$/d; s,/*$,,'
}

apt_debian_mirror() { apt_mirror_uris | grep -m1 '/debian$'; }
apt_security_mirror() { apt_mirror_uris | grep -m1 '/debian-security$'; }

apt_mirror_or_die() {
  m=$(apt_debian_mirror)
  if [ -z "$m" ]; then
    echo "$1: no Debian mirror in this machine's apt sources (${APT_ETC:-/etc/apt}/sources.list*: no URI ending in /debian): add the mirror apt should use, then rerun" >&2
    exit 1
  fi
  echo "$m"
}
