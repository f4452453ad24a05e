#!/bin/sh
# install_prefix.sh - `make install` into a temporary prefix (PLUGINDIR inside
# it too, so nothing system-wide is touched), then build and profile programs
# using only the installed files: plugin by pkg-config, runtime preloaded by
# the installed `inclprof record`, linked shared, and linked statically.
. "$INCLPROF_SRC/tests/lib.sh"
prefix=$T_DIR/prefix
build=$(cd "$INCLPROF_LIBDIR" && pwd)
# A clean nested make: no jobserver or flags inherited from `make check`.
nested_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$INCLPROF_SRC" B="$build" "$@"; }

check "make install PREFIX=<tmp> PLUGINDIR=<tmp>/gcc-plugin succeeds" \
  nested_make install PREFIX="$prefix" PLUGINDIR="$prefix/gcc-plugin"
for f in bin/inclprof bin/inclprof-perfmon lib/libinclprof.so lib/libinclprof.a lib/inclprof/inclprof.so \
         gcc-plugin/inclprof.so include/inclprof.h include/inclprof_abi.h lib/pkgconfig/inclprof.pc; do
  check "installed $f" test -s "$prefix/$f"
done
check "the installed command runs" "$prefix/bin/inclprof" --help
if [ "$(id -u)" = 0 ] && command -v getcap >/dev/null; then
  check_eq "as root, inclprof-perfmon is installed with its two capabilities, permitted only" \
    "$prefix/bin/inclprof-perfmon cap_dac_read_search,cap_perfmon=p" "$(getcap "$prefix/bin/inclprof-perfmon")"
  check_eq "no other installed file has a capability" "" \
    "$(getcap -r "$prefix" 2>/dev/null | grep -v '^[^ ]*/bin/inclprof-perfmon ')"
fi

# The man pages: one per docs/commands/*.md, found through MANPATH, rendered.
for page in man1/inclprof.1 man1/inclprof-record.1 man1/inclprof-perfmon.1 man1/inclprof-info.1 man1/inclprof-report.1 \
            man1/inclprof-export.1 man1/inclprof-suggest.1 man1/inclprof-diff.1 \
            man7/inclprof-plugin.7 man7/inclprof-runtime.7; do
  check "installed man page $page" test -s "$prefix/share/man/$page"
done
check_eq "every docs/commands page is installed as a man page" \
  "$(ls "$INCLPROF_SRC"/docs/commands/*.md | wc -l)" "$(ls "$prefix"/share/man/man[17]/inclprof*.[17] | wc -l)"
check "man inclprof-record shows --max-size-policy" sh -c "MANPATH='$prefix/share/man' MANWIDTH=100 man inclprof-record 2>/dev/null | grep -q -- '--max-size-policy'"
check "man inclprof names its commands" sh -c "MANPATH='$prefix/share/man' MANWIDTH=100 man inclprof 2>/dev/null | grep -q 'inclprof suggest'"
check "man inclprof-plugin shows the probe-form key" sh -c "MANPATH='$prefix/share/man' MANWIDTH=100 man inclprof-plugin 2>/dev/null | grep -q 'probe-form=stub'"
check "man inclprof-runtime shows INCLPROF_WRITER" sh -c "MANPATH='$prefix/share/man' MANWIDTH=100 man inclprof-runtime 2>/dev/null | grep -q 'INCLPROF_WRITER'"
check "man -l renders inclprof-export.1 with --time-range" sh -c "MANWIDTH=100 man -l '$prefix/share/man/man1/inclprof-export.1' 2>/dev/null | grep -q -- '--time-range'"
for opt in --output --transitions --sample-hz --max-size --max-size-policy; do
  check "man inclprof-record documents $opt" sh -c "MANPATH='$prefix/share/man' MANWIDTH=200 man inclprof-record 2>/dev/null | grep -q -- '$opt'"
done

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
check "pkg-config accepts inclprof.pc" pkg-config --validate inclprof
check_eq "pkg-config --cflags names the installed plugin and headers" \
  "-fplugin=$prefix/lib/inclprof/inclprof.so -I$prefix/include" "$(pkg-config --cflags inclprof | sed 's/ *$//')"
check_eq "pkg-config --modversion is the release version" \
  "$(sed -n 's/^#define INCLPROF_VERSION "\(.*\)"$/\1/p' "$INCLPROF_SRC/include/inclprof/version.h")" \
  "$(pkg-config --modversion inclprof)"

cat > prog.c <<'C'
#include <stdio.h>
#include <inclprof.h>
__attribute__((noinline)) static unsigned leaf_step(unsigned x) { return x * 2654435761u + 1; }
__attribute__((noinline)) unsigned middle_loop(unsigned n) {
  unsigned acc = 1;
  for (unsigned i = 0; i < n; i++) acc = leaf_step(acc);
  return acc;
}
int main(void) {
  INCLPROF_THREAD_NAME("main-thread");
  INCLPROF_MARK("start");
  printf("%u\n", middle_loop(1000));
  return 0;
}
C
# 1. plugin from pkg-config, runtime preloaded by the installed `inclprof record`
# shellcheck disable=SC2046
check "compiles with \$(pkg-config --cflags inclprof)" gcc -O2 $(pkg-config --cflags inclprof) prog.c -o prog
check "installed inclprof record runs it" "$prefix/bin/inclprof" record -o rec.data -- ./prog
check "installed inclprof exports CSV" "$prefix/bin/inclprof" export --format csv -o rec.csv rec.data
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
check_eq "middle_loop called once (record)" 1 "$(q rec.csv '^middle_loop$' calls)"
check_eq "leaf_step called 1000 times (record)" 1000 "$(q rec.csv '^leaf_step$' calls)"

# 2. the copy in PLUGINDIR works too (what -fplugin=inclprof uses when PLUGINDIR is GCC's)
check "compiles with the plugin from PLUGINDIR" gcc -O2 -fplugin="$prefix/gcc-plugin/inclprof.so" -I"$prefix/include" prog.c -o prog2

# 3. runtime linked as a shared library through pkg-config
# shellcheck disable=SC2046
check "links with \$(pkg-config --libs inclprof)" \
  gcc -O2 $(pkg-config --cflags inclprof) prog.c -o prog-shared $(pkg-config --libs inclprof)
check "prog-shared loads the installed runtime (the rpath of pkg-config --libs)" sh -c "ldd ./prog-shared | grep -q '$prefix/lib/libinclprof.so'"
check "prog-shared records by itself" env INCLPROF_OUTPUT=shared.data ./prog-shared
check "prog-shared wrote a trace" sh -c "ls shared.data/*.ipb"
check "the trace names middle_loop" sh -c "'$prefix/bin/inclprof' report shared.data | grep -q middle_loop"

# 4. runtime linked statically (-Wl,-u keeps it: the plugin's reference is weak)
# shellcheck disable=SC2046
check "links statically with \$(pkg-config --static --libs inclprof)" \
  gcc -O2 $(pkg-config --cflags inclprof) prog.c -o prog-static -Wl,-Bstatic $(pkg-config --static --libs inclprof) -Wl,-Bdynamic
check "prog-static does not need libinclprof.so" sh -c "! ldd ./prog-static | grep -q libinclprof"
check "prog-static records by itself" env INCLPROF_OUTPUT=static.data ./prog-static
check "the static trace names leaf_step" sh -c "'$prefix/bin/inclprof' report static.data | grep -q leaf_step"

# 5. DESTDIR staging: files under DESTDIR, paths inside them without it
check "make install DESTDIR=<tmp>/stage succeeds" \
  nested_make install DESTDIR="$T_DIR/stage" PREFIX=/opt/inclprof PLUGINDIR=/opt/gcc-plugin
check "DESTDIR: plugin staged in PLUGINDIR" test -s "$T_DIR/stage/opt/gcc-plugin/inclprof.so"
check "DESTDIR: inclprof.pc names the final prefix" grep -qx 'prefix=/opt/inclprof' "$T_DIR/stage/opt/inclprof/lib/pkgconfig/inclprof.pc"
check "nothing installed outside DESTDIR" test ! -e /opt/inclprof

check "make uninstall removes the files again" \
  nested_make uninstall PREFIX="$prefix" PLUGINDIR="$prefix/gcc-plugin"
check_eq "nothing of inclprof left in the prefix" "" "$(find "$prefix" -type f)"
done_testing
