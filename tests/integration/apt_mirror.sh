#!/bin/sh
# apt_mirror.sh - the scripts that fetch packages of their own take the
# Debian mirror from this machine's apt sources (scripts/apt-mirror.sh), in
# both source formats, and fail with one line naming the cause when there is
# none; scripts/debian-source.sh fetches from that mirror only.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/scripts/apt-mirror.sh"

# A deb822 .sources file with two URIs in one field, a disabled file, a
# one-line list with options.
mkdir -p a/sources.list.d
printf 'Types: deb\n# a comment\nURIs: http://mirror.example.test/pub/debian/ http://other.example.test/debian\nSuites: bookworm\nComponents: main\n\nTypes: deb\nURIs: http://security.example.test/debian-security\nSuites: bookworm-security\nComponents: main\n' \
  >a/sources.list.d/debian.sources
printf 'deb https://vendor.example.test/apt stable main\n' >a/sources.list.d/vendor.list.disabled
check_eq "deb822: the first URI ending in /debian" "http://mirror.example.test/pub/debian" "$(APT_ETC=a apt_debian_mirror)"
check_eq "deb822: the security mirror" "http://security.example.test/debian-security" "$(APT_ETC=a apt_security_mirror)"
check_eq "a disabled file is not read" "3" "$(APT_ETC=a apt_mirror_uris | wc -l)"

mkdir -p b/sources.list.d
printf '# deb http://commented.example.test/debian bookworm main\ndeb [arch=amd64 signed-by=/k.gpg] http://local.example.test:3142/debian bookworm main\ndeb-src http://local.example.test:3142/debian bookworm main\n' \
  >b/sources.list
check_eq "one-line format with options, comments skipped" "http://local.example.test:3142/debian" "$(APT_ETC=b apt_debian_mirror)"
check_eq "no security mirror listed: empty" "" "$(APT_ETC=b apt_security_mirror)"

mkdir -p c/sources.list.d
printf 'deb https://vendor.example.test/apt stable main\n' >c/sources.list.d/vendor.list
msg=$( (APT_ETC=c apt_mirror_or_die who) 2>&1); rc=$?
check_eq "no Debian mirror: exit 1" 1 "$rc"
check "no Debian mirror: the message names the cause and the fix" sh -c 'echo "$1" | grep -q "^who: no Debian mirror in this machine.s apt sources.*add the mirror apt should use"' _ "$msg"

# debian-source.sh asks that mirror, and says so when it cannot fetch.
mkdir -p d/sources.list.d empty
printf 'Types: deb-src\nURIs: file:%s/empty/debian\nSuites: bookworm\nComponents: main\n' "$T_DIR" >d/sources.list.d/x.sources
msg=$(APT_ETC=d INCLPROF_APT_TIMEOUT=60 sh "$INCLPROF_SRC/scripts/debian-source.sh" cache --suite bookworm hello 2>&1 >/dev/null); rc=$?
check_eq "debian-source.sh: a failed fetch exits 1" 1 "$rc"
check "debian-source.sh: its private list names the machine's mirror" grep -q "^URIs: file:$T_DIR/empty/debian$" cache/apt-bookworm/parts/src.sources
check "debian-source.sh: one line names the package, the mirror and the log" \
  sh -c 'echo "$1" | tail -n1 | grep -q "apt-get source hello (bookworm) from file:.*/empty/debian failed (exit [0-9]*): see .*/cache/fetch-hello.log"' _ "$msg"
# A download that stopped after the .dsc is not taken for a complete one.
printf 'Format: 3.0 (quilt)\nSource: hello\nFiles:\n 0123 10 hello_2.10.orig.tar.gz\n 4567 20 hello_2.10-3.debian.tar.xz\n' >cache/hello_2.10-3.dsc
: >cache/hello_2.10.orig.tar.gz
APT_ETC=d INCLPROF_APT_TIMEOUT=60 sh "$INCLPROF_SRC/scripts/debian-source.sh" cache --suite bookworm hello 2>/dev/null; rc=$?
check_eq "a .dsc without all its files: fetched again (and failing here: exit 1)" 1 "$rc"
check "... and the incomplete .dsc is removed" test ! -e cache/hello_2.10-3.dsc
printf 'Format: 3.0 (quilt)\nSource: hello\nFiles:\n 0123 10 hello_2.10.orig.tar.gz\n' >cache/hello_2.10-3.dsc
APT_ETC=d sh "$INCLPROF_SRC/scripts/debian-source.sh" cache --suite bookworm hello 2>/dev/null; rc=$?
check_eq "a .dsc with all its files: present, nothing fetched" 0 "$rc"
msg=$(sh "$INCLPROF_SRC/scripts/debian-source.sh" cache 2>&1); rc=$?
check_eq "debian-source.sh without a package: usage, exit 2" "2 usage: scripts/debian-source.sh CACHE [--suite SUITE] PACKAGE..." "$rc $msg"

# No script names a mirror host: the mirror always comes from the machine.
hosts=$(cd "$INCLPROF_SRC" && git grep -l -I -E 'https?://[a-z0-9.-]+\.(org|com|net)/(debian|ubuntu)' 2>/dev/null)
check_eq "no file of the repository names a package mirror host" "" "$hosts"
done_testing
