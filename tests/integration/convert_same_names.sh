#!/bin/sh
# convert_same_names.sh - functions the demangler names alike, in a library
# built without the plugin (structors_lib.cc): the destructor's deleting
# copy (reached through the vtable by delete) and its other copies have one
# row each, told apart by the copy in the Module column ("(deleting)",
# "(complete)", "(base)": with the class's virtual base, the complete-object
# and base-object copies are different functions); a library function
# called both at a call site and through a pointer has one row with every
# call.  Every count is the
# program's own, and no two rows of the table read the same.  The header's
# lines are broken at spaces to fit the width, their words unchanged.
. "$INCLPROF_SRC/tests/lib.sh"
need g++
P="$INCLPROF_SRC/tests/programs/convert"
check "the library builds (no plugin)" g++ -O2 -fPIC -shared -o libstructors.so "$P/structors_lib.cc"
check "the program builds with the plugin" g++ -O2 -fplugin="$INCLPROF_PLUGIN" -o structors "$P/structors_main.cc" \
  -L. -lstructors -Wl,-rpath,"$PWD"
"$INCLPROF" record -o data ./structors 10 >out.txt 2>&1
count() { awk -v k="$1" '$1 == k { print $2 }' out.txt; }
table() { COLUMNS=120 "$INCLPROF" report --fields calls "$@" data 2>/dev/null | sed -n '/^ *Calls/,$p' | sed 1d; }
table >table.txt
row() { awk -v m="$1" -v f="$2" '{ n = $1; $1 = ""; sub(/^ +/, "") } $0 == m "  " f || $0 == m " " f { print n }' table.txt; }
check_eq "twice(int), called at a call site and through a pointer: one row, every call ($(count twice))" \
  "$(count twice)" "$(row libstructors.so 'twice(int)')"
check_eq "Base::~Base()'s deleting copy (delete through the vtable): its own row" \
  "$(count deleting)" "$(row 'libstructors.so (deleting)' 'Base::~Base()')"
check_eq "Base::~Base()'s complete-object copy (objects destroyed whole): its own row" \
  "$(count complete)" "$(row 'libstructors.so (complete)' 'Base::~Base()')"
check_eq "Base::~Base()'s base-object copy (the Base parts of Derived objects): its own row" \
  "$(count base)" "$(row 'libstructors.so (base)' 'Base::~Base()')"
check_eq "Base::Base()'s complete-object copy: every object made whole ($(count complete) + $(count deleting))" \
  "$(($(count complete) + $(count deleting)))" "$(row 'libstructors.so (complete)' 'Base::Base()')"
check_eq "Base::Base()'s base-object copy: every Derived object" "$(count base)" \
  "$(row 'libstructors.so (base)' 'Base::Base()')"
check_eq "no two rows of the table read the same" "" "$(sed 's/^ *[0-9]* *//' table.txt | sort | uniq -d)"
header() { "$@" "$INCLPROF" report data 2>/dev/null | sed '/^ *Calls/,$d'; }
header env COLUMNS=60 >narrow.txt
header env -u COLUMNS >whole.txt
check_eq "COLUMNS=60: no header line is wider (the widest whole: $(wc -L <whole.txt))" "" \
  "$(awk 'length($0) > 60' narrow.txt)"
check_eq "its words as without a width" "$(tr -s ' \n' '  ' <whole.txt)" "$(tr -s ' \n' '  ' <narrow.txt)"
done_testing
