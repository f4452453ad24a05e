#!/bin/sh
# arm64-libs.sh DIR - the AArch64 builds of the runtime's libraries
# (protobuf-c, libdeflate, zlib: each one's -dev and shared-library package
# of this Debian release) unpacked into DIR/root with dpkg-deb -x, for a
# runtime cross-compiled for AArch64 (tests/integration/cross_aarch64.sh).
# apt-get fetches them from the Debian mirror of this machine's apt sources
# (scripts/apt-mirror.sh) with a private state in DIR/apt: the system's apt
# sources and lists, dpkg's architectures and its installed packages stay as
# they are.  Done once (DIR/.done); INCLPROF_APT_TIMEOUT limits each apt-get
# run (seconds, default 600).
set -eu
. "$(dirname "$0")/apt-mirror.sh"
dir=${1:?usage: scripts/arm64-libs.sh DIR}
[ -f "$dir/.done" ] && exit 0
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
limit=${INCLPROF_APT_TIMEOUT:-600}
mirror=$(apt_mirror_or_die arm64-libs.sh)
pkgs="libprotobuf-c-dev libprotobuf-c1 libdeflate-dev libdeflate0 zlib1g-dev zlib1g"
rm -rf "$dir/apt" "$dir/debs" "$dir/root"
mkdir -p "$dir/apt/parts" "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs" "$dir/root"
printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nArchitectures: arm64\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
  "$mirror" "$codename" >"$dir/apt/parts/arm64.sources"
set -- -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$dir/apt/parts" \
  -o Dir::State::Lists="$dir/apt/lists" -o Dir::State::status=/dev/null -o Dir::Cache="$dir/apt/cache" \
  -o APT::Architecture=arm64 -o APT::Architectures=arm64 -o Acquire::Languages=none \
  -o APT::Sandbox::User=root
log="$dir/apt/fetch.log"
# shellcheck disable=SC2086
if ! { timeout --foreground -k 10 "$limit" apt-get "$@" update -qq &&
  (cd "$dir/debs" && timeout --foreground -k 10 "$limit" apt-get "$@" download $pkgs); } >"$log" 2>&1; then
  echo "inclprof: fetching the arm64 packages $pkgs of $codename failed (see $log): check that $mirror is reachable from here, then rerun" >&2
  exit 1
fi
for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
# A link to an absolute path (libz.so -> /lib/...) points into DIR/root.
find "$dir/root" -type l | while read -r l; do
  case $(readlink "$l") in /*) ln -sf "$dir/root$(readlink "$l")" "$l" ;; esac
done
rm -rf "$dir/apt/lists" "$dir/apt/cache"
touch "$dir/.done"
