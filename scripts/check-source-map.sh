#!/bin/sh
# check-source-map.sh - every source file of the repository (C and C++, shell,
# make, Python, protobuf schemas, JavaScript modules) is named in a "Source
# layout" table of docs/*.md; prints those that are not and fails.
# A table's first column names files in backticks, relative to the folder its
# header gives as "(under `DIR/`)", else to the repository's top.
# Usage: scripts/check-source-map.sh (from the top of the repository)
set -eu
mapped=$(awk '
  FNR == 1 { prefix = ""; in_table = 0 }
  /^\|/ {
    if (!in_table) {  # a header row: where its paths are
      in_table = 1
      prefix = ""
      if (match($0, /\(under `[^`]*\/`\)/))
        prefix = substr($0, RSTART + 8, RLENGTH - 10)
      next
    }
    split($0, cell, "|")
    rest = cell[2]
    while (match(rest, /`[^`]+`/)) {
      print prefix substr(rest, RSTART + 1, RLENGTH - 2)
      rest = substr(rest, RSTART + RLENGTH)
    }
    next
  }
  { in_table = 0 }
' docs/*.md | sort -u)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  sources=$(git ls-files -co --exclude-standard -- '*.c' '*.h' '*.cc' '*.cpp' '*.hpp' \
    '*.sh' 'Makefile' '*/Makefile' '*.mk' '*.py' '*.proto' '*.mjs')
else
  sources=$(find . \( -name build -o -name node_modules -o -name demo-out \) -prune -o \
    -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cpp' -o -name '*.hpp' \
      -o -name '*.sh' -o -name Makefile -o -name '*.mk' -o -name '*.py' -o -name '*.proto' -o -name '*.mjs' \) \
    -print | sed 's|^\./||')
fi
missing=$(printf '%s\n' $sources | sort -u | comm -23 - "$(printf '%s\n' "$mapped" >"${TMPDIR:-/tmp}/ipmap.$$"; echo "${TMPDIR:-/tmp}/ipmap.$$")")
rm -f "${TMPDIR:-/tmp}/ipmap.$$"
if [ -n "$missing" ]; then
  echo "source files in no docs/*.md Source layout table (add a row saying what each holds):" >&2
  printf '  %s\n' $missing >&2
  exit 1
fi
echo "source map: every source file is in a docs/*.md table"
