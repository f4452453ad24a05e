#!/bin/sh
# plugin_symbols.sh - the descriptor table.  Same-named statics
# in two files get distinct ids; template and inline (comdat) functions emitted
# by two units share one id and still link; name, demangled name, file and line
# are right; ids do not change between builds.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"
export LOGRT_TABLE=1
# table: the descriptor lines, tab-separated: id flags name pretty file line addr
table() { sed -n 's/^T //p' log; }
tab() { awk -F'	' "$@"; }

pcc same "$PP/same1.c" "$PP/same2.c" -O2 || fail "same1.c + same2.c compile"
run log ./same
check_eq "two statics named helper: two entries" 2 "$(table | tab '$3=="helper"' | wc -l)"
check_eq "...with distinct ids" 2 "$(table | tab '$3=="helper"{print $1}' | sort -u | wc -l)"
check_eq "...flagged instrumented+local (5)" "$((5 + STUB)) $((5 + STUB))" "$(table | tab '$3=="helper"{print $2}' | paste -sd' ' -)"
check_eq "...each with its own file and line" "$PP/same1.c 3,$PP/same2.c 2" \
  "$(table | tab '$3=="helper"{print $5 " " $6}' | sort | paste -sd, -)"
check_eq "public function flagged instrumented only (1)" "$((1 + STUB))" "$(table | tab '$3=="from_same1"{print $2}')"
check_eq "both helpers entered once" 2 "$(count E helper log)"
ids1=$(table | tab '{print $1, $3, $5}' | sort)
pcc same "$PP/same1.c" "$PP/same2.c" -O0
run log ./same
check_eq "ids identical across builds (-O2 vs -O0)" "$ids1" "$(table | tab '{print $1, $3, $5}' | sort)"
# The id is FNV-1a 64 of "helper", NUL, the file (see plugin/ip_names.c).
expect=$(python3 -c 'import sys
h=0xcbf29ce484222325
for b in b"helper\0"+sys.argv[1].encode():
    h=((h^b)*0x100000001b3)&0xffffffffffffffff
print("%016x"%h)' "$PP/same1.c")
check_eq "id is FNV-1a of name NUL file" "$expect" "$(table | tab -v f="$PP/same1.c" '$3=="helper" && $5==f{print $1}')"

pcxx tmpl "$PP/tmpl1.cc" "$PP/tmpl2.cc" -O2 -I"$PP" || fail "tmpl1.cc + tmpl2.cc link"
run log ./tmpl; rc=$?
check_eq "comdat program runs" 0 "$rc"
check_eq "template: both units' descriptors share one id" "2 1" \
  "$(table | tab '$3=="_ZN2ns5twiceIiEET_S1_"{print $1}' | awk '{n++; u[$1]} END{print n, length(u)}')"
check_eq "inline function: both units' descriptors share one id" "2 1" \
  "$(table | tab '$3=="_ZN2ns13shared_inlineEi"{print $1}' | awk '{n++; u[$1]} END{print n, length(u)}')"
check_eq "demangled name" "ns::shared_inline(int)" "$(table | tab '$3=="_ZN2ns13shared_inlineEi"{print $4; exit}')"
check_eq "template file and line" "$PP/tmpl.h 4" "$(table | tab '$3=="_ZN2ns5twiceIiEET_S1_"{print $5, $6; exit}')"
check_eq "linker kept one copy: twice entered twice" 2 "$(count E _ZN2ns5twiceIiEET_S1_ log)"
check_eq "every instrumented function's descriptor has its address" 0 "$(table | tab '$2 % 2 == 1 && $7 != "addr"' | wc -l)"
check_eq "callee descriptors have none" 0 "$(table | tab '$2 == 2 && $7 != "noaddr"' | wc -l)"
done_testing
