#!/bin/sh
# llvm-version.sh - the LLVM major version Debian's release on this machine
# ships as its clang (VERSION_CODENAME of /etc/os-release): 14 in Debian 12
# (bookworm), 19 in Debian 13 (trixie) and later.  scripts/deps.sh installs
# clang-N of that version; the benchmarks (XRay) and the libFuzzer build use it.
case "$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null)" in
  bookworm) echo 14 ;;
  *) echo 19 ;;
esac
