#!/bin/sh
# md2man.sh - the man pages of `make install`: converts each
# docs/commands/NAME.md into OUT_DIR/NAME.SECTION with go-md2man.  A page
# begins with the line "# NAME(SECTION)"; it becomes the man page's title
# line, with the release version.  Links to other pages keep their text only
# (a man page has no relative links).
#   usage: scripts/md2man.sh OUT_DIR PAGE.md...
set -eu
die() { echo "inclprof md2man: $*" >&2; exit 1; }
[ $# -ge 2 ] || { echo "usage: scripts/md2man.sh OUT_DIR PAGE.md..." >&2; exit 2; }
out=$1; shift
command -v go-md2man >/dev/null || die "go-md2man is missing (scripts/deps.sh build installs it)"
src=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^#define INCLPROF_VERSION "\(.*\)"$/\1/p' "$src/include/inclprof/version.h")
mkdir -p "$out"
for md in "$@"; do
  title=$(sed -n '1s/^# \([a-z0-9-]*\)(\([1-9]\))$/\1 \2/p' "$md")
  [ -n "$title" ] || die "$md: the first line is not '# NAME(SECTION)'"
  name=${title% *} section=${title#* }
  {
    echo "% $name $section \"inclprof $version\" \"inclprof manual\""
    # [text](target) -> text, for targets that are not web addresses
    sed -e '1d' -e 's/\[\([^]]*\)\](\([^h)][^)]*\))/\1/g' "$md"
  } | go-md2man >"$out/$name.$section.tmp"
  # A table cell's escaped pipe (\|, which Markdown needs) is a plain one, and
  # every cell after the first is a text block, so that tbl wraps it to the
  # page's width.
  sed 's/\\\\|/|/g' "$out/$name.$section.tmp" | awk '
    /^\.TS/ { tbl = 1; fmt = 1; print; next }
    /^\.TE/ { tbl = 0; print; next }
    tbl && fmt { if ($0 ~ /\.$/) fmt = 0; print; next }
    tbl && block { print; if ($0 ~ /^T}/) block = 0; next }
    tbl && /\t/ && !/T\{/ {
      n = split($0, cell, "\t"); line = cell[1]
      for (i = 2; i <= n; i++) line = line "\tT{\n" cell[i] "\nT}"
      print line; next
    }
    tbl && /T\{$/ { block = 1 }
    { print }' >"$out/$name.$section"
  rm -f "$out/$name.$section.tmp"
done
