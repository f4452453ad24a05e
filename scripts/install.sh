#!/bin/sh
# install.sh - `make install`: copies a built inclprof into a prefix;
# `make uninstall` (--uninstall) removes exactly those files again.
#   scripts/install.sh [--uninstall] --build DIR --prefix PREFIX [--plugindir DIR] [--destdir DIR]
# Layout (all under DESTDIR):
#   PREFIX/bin/inclprof                      the command
#   PREFIX/bin/inclprof-perfmon              the kernel events' helper, given (as root)
#                                            cap_perfmon,cap_dac_read_search=p: its
#                                            file capabilities, permitted only
#   PREFIX/lib/libinclprof.so, .a            the runtime
#   PREFIX/lib/inclprof/inclprof.so          the GCC plugin
#   PLUGINDIR/inclprof.so                    a second copy, so -fplugin=inclprof works
#                                            (default: gcc -print-file-name=plugin,
#                                            of $INCLPROF_GCC if set; empty: skip)
#   PREFIX/include/inclprof.h, inclprof_abi.h
#   PREFIX/lib/pkgconfig/inclprof.pc
#   PREFIX/share/man/manN/NAME.N             the man pages (docs/commands/NAME.md,
#                                            converted into BUILD/man/ by scripts/md2man.sh)
set -eu
die() { echo "inclprof install: $*" >&2; exit 1; }
build=build prefix=/usr/local plugindir="" destdir="" uninstall=0
while [ $# -gt 0 ]; do
  case "$1" in
    --uninstall) uninstall=1; shift; continue ;;
    --build) build=$2 ;;
    --prefix) prefix=$2 ;;
    --plugindir) plugindir=$2 ;;
    --destdir) destdir=$2 ;;
    *) die "unknown option '$1' (valid: --uninstall --build --prefix --plugindir --destdir)" ;;
  esac
  shift 2 || die "option '$1' needs a value"
done
case "$prefix" in /*) ;; *) die "PREFIX must be an absolute path, got '$prefix'" ;; esac
src=$(cd "$(dirname "$0")/.." && pwd)
root=$destdir$prefix
if [ "$uninstall" = 1 ]; then
  for f in bin/inclprof bin/inclprof-perfmon lib/libinclprof.so lib/libinclprof.a lib/inclprof/inclprof.so \
           include/inclprof.h include/inclprof_abi.h lib/pkgconfig/inclprof.pc; do
    rm -f "$root/$f"
  done
  for md in "$src"/docs/commands/*.md; do  # each page's "# NAME(SECTION)"
    page=$(sed -n '1s/^# \([a-z0-9-]*\)(\([1-9]\))$/man\2\/\1.\2/p' "$md")
    [ -z "$page" ] || rm -f "$root/share/man/$page"
  done
  rmdir "$root/lib/inclprof" 2>/dev/null || true
  [ -z "$plugindir" ] || rm -f "$destdir$plugindir/inclprof.so"
  echo "inclprof uninstall: removed inclprof's files from $root${plugindir:+ and $destdir$plugindir}"
  exit 0
fi
for f in "$build/inclprof" "$build/inclprof-perfmon" "$build/inclprof.so" "$build/libinclprof.so" "$build/libinclprof.a" \
         "$src/runtime/inclprof.h" "$src/include/inclprof/inclprof_abi.h"; do
  [ -f "$f" ] || die "$f: missing (run 'make' first)"
done
ls "$build"/man/*.[1-9] >/dev/null 2>&1 || die "$build/man/: no man pages (run 'make install', which makes them)"
version=$(sed -n 's/^#define INCLPROF_VERSION "\(.*\)"$/\1/p' "$src/include/inclprof/version.h")
[ -n "$version" ] || die "$src/include/inclprof/version.h: no INCLPROF_VERSION"

echo "inclprof install: into $root"
install -d "$root/bin" "$root/lib/inclprof" "$root/lib/pkgconfig" "$root/include"
install -m 755 "$build/inclprof" "$root/bin/inclprof"
install -m 755 "$build/inclprof-perfmon" "$root/bin/inclprof-perfmon"
# The helper opens kernel events for a user's own recorded processes
# (docs/runtime.md, "Recording a program that does not run as root"): two
# capabilities, permitted and raised by the helper only where it needs them.
helper_caps=cap_perfmon,cap_dac_read_search=p
if [ "$(id -u)" = 0 ] && command -v setcap >/dev/null && setcap "$helper_caps" "$root/bin/inclprof-perfmon"; then
  echo "inclprof install: $root/bin/inclprof-perfmon has $helper_caps (kernel events for programs that do not run as root)"
else
  echo "inclprof install: $root/bin/inclprof-perfmon has no capabilities: as root, setcap $helper_caps $root/bin/inclprof-perfmon"
fi
install -m 755 "$build/libinclprof.so" "$root/lib/libinclprof.so"
install -m 644 "$build/libinclprof.a" "$root/lib/libinclprof.a"
install -m 755 "$build/inclprof.so" "$root/lib/inclprof/inclprof.so"
install -m 644 "$src/runtime/inclprof.h" "$src/include/inclprof/inclprof_abi.h" "$root/include/"
for page in "$build"/man/*.[1-9]; do
  section=${page##*.}
  install -d "$root/share/man/man$section"
  install -m 644 "$page" "$root/share/man/man$section/"
done
sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" "$src/scripts/inclprof.pc.in" \
  > "$root/lib/pkgconfig/inclprof.pc"
if [ -n "$plugindir" ]; then
  install -d "$destdir$plugindir"
  install -m 755 "$build/inclprof.so" "$destdir$plugindir/inclprof.so"
  gcc=${INCLPROF_GCC:-gcc}
  if [ "$plugindir" = "$($gcc -print-file-name=plugin 2>/dev/null)" ]; then
    echo "inclprof install: plugin also in $destdir$plugindir, so $gcc -fplugin=inclprof finds it"
  else
    echo "inclprof install: plugin also in $destdir$plugindir"
  fi
fi
# A fresh library in a standard directory needs the loader cache refreshed.
if [ -z "$destdir" ] && [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then
  ldconfig
fi
echo "inclprof install: done; try: $prefix/bin/inclprof --help"
