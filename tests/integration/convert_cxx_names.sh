#!/bin/sh
# convert_cxx_names.sh - a C++ profile read at 80, 120 and 200 columns: two
# executables built from one source (long_names.cc: three instantiations of
# a long member template that differ only in one argument deep inside,
# overloads, a lambda) run in one session.  The function table is exact at
# each width (--fields calls, sorted by name): the own name and the end of
# the signature kept, the template arguments that tell the three apart
# kept, every row carrying its executable in a Module column.  With the
# default columns, every line of every view (table, tree, callers,
# callees, wait, by module / thread / process, --missing) fits the width
# and no two functions read alike; the compact set where the full one
# leaves names too little room; whole names without a terminal and with
# --wide; --missing padded to at most 40 in a pipe; --fields' order and
# its errors.
. "$INCLPROF_SRC/tests/lib.sh"
need g++ python3
for p in alpha-test beta-test; do
  check "$p builds" g++ -O2 -fplugin="$INCLPROF_PLUGIN" "$INCLPROF_SRC/tests/programs/convert/long_names.cc" -o "$p"
done
"$INCLPROF" record -o data -- sh -c './alpha-test; ./beta-test' >run.txt 2>&1
check_eq "both programs ran, each calling process() 60 times" 2 "$(grep -c '^calls process 60$' run.txt)"

# --- the function table, exact at each width -----------------------------
table() { COLUMNS=$1 "$INCLPROF" report --fields calls --sort name data 2>/dev/null | sed -n '/^Calls/,$p'; }
rows() {
  printf 'Calls      Module  Function\n'
  for f in 'compute(double)' 'compute(int)' "$1" main 'main::{lambda(int)#1}::operator()(int) const'; do
    n=1
    case $f in compute\(int\)) n=6 ;; main::*) n=20 ;; esac
    printf '%5s  alpha-test  %s\n%5s   beta-test  %s\n' "$n" "$f" "$n" "$f"
  done
  for k in 1 2 3; do
    printf '   20  alpha-test  %s\n   20   beta-test  %s\n' "$(echo "$2" | sed "s/@/$k/")" "$(echo "$2" | sed "s/@/$k/")"
  done
  printf '    2   libc.so.6  printf\n'
}
check_eq "COLUMNS=80: each row told apart (Policy<N> kept), its executable beside it" \
  "$(rows 'compute(outer_space::inner_detail::FixedArray<...> const&)' \
    '...Policy<@> >::process(...dArray<...> const&, unsigned long)')" "$(table 80)"
check_eq "COLUMNS=120: the scopes and the parameters as well" \
  "$(rows 'compute(outer_space::inner_detail::FixedArray<...> const&)' \
    '...::Holder<...::Table<...>, ...::Policy<@> >::process(...::FixedArray<...> const&, unsigned long)')" \
  "$(table 120)"
check_eq "COLUMNS=200: only the class template's first argument cut" \
  "$(rows 'compute(outer_space::inner_detail::FixedArray<outer_space::inner_detail::FixedArray<char, 32>, 4> const&)' \
    '...::Holder<outer_space::inner_detail::Table<...>, outer_space::inner_detail::Policy<@> >::process(outer_space::inner_detail::FixedArray<char, 32> const&, unsigned long)')" \
  "$(table 200)"

# --- the default columns at each width ------------------------------------
"$INCLPROF" export -f csv -o names.csv data 2>/dev/null
python3 -c 'import csv, sys
for r in list(csv.reader(open(sys.argv[1])))[1:]: print(r[0])' names.csv | sort >whole.txt
pid=$(ls data/*.ipb | head -n1 | sed 's|^data/\([0-9]*\)\.ipb$|\1|')
for cols in 80 120 200; do
  for view in "" "--tree" "--tree --hot" "--callers compute(int)" "--callees main" "--wait" \
    "--by module" "--by thread" "--by process" "--missing" "--per-call" "--process $pid --tree"; do
    # shellcheck disable=SC2086
    COLUMNS=$cols "$INCLPROF" report $view data >"out.txt" 2>/dev/null
    # every table, and the lines that go with it, to the blank line after it
    longest=$(awk '/^ *(Calls|El Incl|Defined at) / { on = 1 } /^$/ { on = 0 } on { if (length($0) > m) m = length($0) } END { print m + 0 }' out.txt)
    check "COLUMNS=$cols report $view: no table line longer ($longest)" test "$longest" -le "$cols"
  done
  # names after the compact (or, at 200, full) set and the Module column
  words=5
  [ "$cols" = 200 ] && words=13
  COLUMNS=$cols "$INCLPROF" report data 2>/dev/null | sed -n '/^Calls/,$p' >t.txt
  check_eq "COLUMNS=$cols: 17 rows, no two alike (module and name)" 17 \
    "$(sed 1d t.txt | awk -v w="$words" '{ for (i = 1; i <= w; i++) $i = ""; print }' | sort -u | wc -l)"
done
check_eq "COLUMNS=120: the compact set beside the Module column" "Calls El Incl El Incl% El Excl% Module Function" \
  "$(COLUMNS=120 "$INCLPROF" report data 2>/dev/null | grep '^ *Calls' | tr -s ' ' | sed 's/^ //')"
check_eq "COLUMNS=200: the full set" \
  "Calls El Incl El Incl% El Excl El Excl% App Incl App Incl% App Excl App Excl% Module Function" \
  "$(COLUMNS=200 "$INCLPROF" report data 2>/dev/null | grep '^ *Calls' | tr -s ' ' | sed 's/^ //')"
check_eq "COLUMNS=120 --sort application-exclusive: its column joins the compact set" \
  "Calls El Incl El Incl% El Excl% App Excl Module Function" \
  "$(COLUMNS=120 "$INCLPROF" report --sort application-exclusive data 2>/dev/null | grep '^ *Calls' | tr -s ' ' | sed 's/^ //')"
names_of() { sed -n '/^ *Calls/,$p' "$1" | sed 1d | sed 's/^.* \(alpha-test\|beta-test\|libc\.so\.6\)  //' | sort -u; }
"$INCLPROF" report data >pipe.txt 2>/dev/null
check_eq "a pipe without COLUMNS: whole names, as the CSV has them" "$(sort -u whole.txt)" "$(names_of pipe.txt)"
COLUMNS=80 "$INCLPROF" report --wide data >wide.txt 2>/dev/null
check_eq "--wide: whole names at 80 columns" "$(sort -u whole.txt)" "$(names_of wide.txt)"
check "--wide: every column" grep -q '^ *Calls .*App Excl% *Module *Function$' wide.txt

# --- modules, --missing, --fields -----------------------------------------
"$INCLPROF" report --by module data >modules.txt 2>/dev/null
check "--by module lists alpha-test" grep -q " $T_DIR/alpha-test$" modules.txt
check "--by module lists beta-test" grep -q " $T_DIR/beta-test$" modules.txt
"$INCLPROF" report --missing data >missing.txt 2>/dev/null
check "--missing lists the inlined template" grep -q 'first_two_letters_of_the_lookup_key_for_every_holder<char>(.*)  inlined into main$' missing.txt
check_eq "--missing in a pipe: no name padded past 40 characters" 0 "$(grep -c ' \{42,\}' missing.txt)"
COLUMNS=80 "$INCLPROF" report --missing data >missing80.txt 2>/dev/null
check "--missing at 80 columns: the name cut, the line within 80" \
  awk '/inlined into main$/ { found = 1; if (length($0) > 80 || !index($0, "...")) exit 1 } END { exit !found }' missing80.txt
check_eq "--fields in the order given" "El Incl% Calls Module Function" \
  "$("$INCLPROF" report --fields el-incl%,calls data 2>/dev/null | grep '^ *El Incl%' | tr -s ' ' | sed 's/^ //')"
"$INCLPROF" report --fields calls,bogus data >/dev/null 2>err.txt
check_eq "--fields with an unknown name: exit 2" 2 "$?"
check_eq "... naming it and where the fields are listed" \
  "inclprof report: bad --fields 'calls,bogus': no field 'bogus'; try 'inclprof report --help'" \
  "$(head -n1 err.txt)"
listed=$("$INCLPROF" report --help | sed -n '/--fields LIST/,/^ *(default/p' | sed '1d; $d' | tr -d ' \n')
check_eq "--help lists 34 fields" 34 "$(echo "$listed" | tr ',' '\n' | grep -c .)"
check "... and --fields takes every one" "$INCLPROF" report --fields "$(echo "$listed" | sed 's/,wall,el\/wall,app\/wall//')" --by function data
"$INCLPROF" report --fields wall data >/dev/null 2>err.txt
check_eq "--fields wall on function rows: exit 2" 2 "$?"
check "... saying what it goes with" grep -q "^inclprof report: --fields: field 'wall' goes with thread (--by thread) rows$" err.txt
"$INCLPROF" report --hot data >/dev/null 2>err.txt
check_eq "--hot without --tree: exit 2" 2 "$?"
done_testing
