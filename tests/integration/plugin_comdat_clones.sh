#!/bin/sh
# plugin_comdat_clones.sh - C++ units that share templates whose local clones
# (.isra) GCC places in the COMDAT group of their caller.  The linker keeps one
# unit's copy of each group and drops the others with their local symbols;
# the program must link whichever copy it keeps, at -O2 and -O3, with and
# without LTO, and count every call of the kept copy.
. "$INCLPROF_SRC/tests/lib.sh"
SRC=$INCLPROF_SRC/tests/programs/plugin/comdat
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
# sum_calls CSV REGEX: the calls of every row whose name matches REGEX
sum_calls() { q "$1" "$2" calls | awk '{ s += $1 } END { print s + 0 }'; }

check "the case is real: at -O2 a .isra clone sits in a COMDAT group" \
  sh -c "g++ -O2 -c '$SRC/unit1.cpp' -o probe.o && readelf -gW probe.o | grep -q 'isra'"

for opt in "-O2" "-O3" "-O2 -flto" "-O3 -flto"; do
  tag=$(echo "$opt" | tr -d ' -')
  # shellcheck disable=SC2086
  if ! g++ $opt -fplugin="$INCLPROF_PLUGIN" "$SRC"/unit1.cpp "$SRC"/unit2.cpp "$SRC"/unit3.cpp \
      "$SRC"/main.cpp -o "prog$tag" -L"$INCLPROF_LIBDIR" -Wl,-rpath,"$INCLPROF_LIBDIR" \
      -linclprof 2>"link$tag.err"; then
    fail "$opt: links with the plugin: $(grep -m1 -E 'discarded|error' "link$tag.err" | cut -c1-200)"
    continue
  fi
  ok "$opt: links with the plugin"
  check_eq "$opt: behaves as the program should" "sum 33, messages 21" \
    "$("$INCLPROF" record -o "tr$tag" -- "./prog$tag" 2>/dev/null)"
  "$INCLPROF" export --format csv -o "p$tag.csv" "tr$tag" 2>/dev/null
  # 7 keys a unit, 3 units: lookup<int> rejects 3 of them, lookup<long> 4.
  check_eq "$opt: every message the program counted is a call of bad_key" 21 \
    "$(sum_calls "p$tag.csv" '^std::__cxx11::basic_string<.*> const bad_key<')"
  check_eq "$opt: lookup<int> called 21 times" 21 "$(sum_calls "p$tag.csv" '^int lookup<int>\(')"
  check_eq "$opt: lookup<long> called 21 times" 21 "$(sum_calls "p$tag.csv" '^int lookup<long>\(')"
done
done_testing
