#!/bin/sh
# convert_cxx_long_name.sh - a C++ function whose demangled name is longer
# than the runtime writes (its records cut names to 1000 bytes so that one
# fits a stack frame): a template instantiated on a type nested twelve deep.
# The CSV and report --wide give the name whole, as c++filt demangles the
# symbol nm finds in the binary (less GCC's clone suffix), with its 7 calls.
. "$INCLPROF_SRC/tests/lib.sh"
need g++ python3 nm c++filt
python3 - <<'PY'
ns = "a_rather_long_namespace_name_for_testing"
t = ns + "::Leaf"
for _ in range(12):
    t = "%s::Pair<%s, %s::Leaf>" % (ns, t, ns)
open("deep.cc", "w").write(
    "namespace %s { template <class A, class B> struct Pair {}; struct Leaf {}; }\n" % ns +
    "typedef %s Deep;\n" % t +
    "template <class T> __attribute__((noinline)) int work(const T &, int n) { return n * 3; }\n"
    "int main(int argc, char **) { Deep d; int s = 0;\n"
    "  for (int i = 0; i < 7; i++) s += work(d, argc + i);\n"
    "  return s == 0; }\n")
PY
check "deep.cc builds with the plugin" g++ -O2 -fplugin="$INCLPROF_PLUGIN" deep.cc -o deep
whole=$(nm deep | awk '$3 ~ /^_Z4work/ { print $3; exit }' | c++filt | sed 's/ \[clone [^]]*\]$//')
check "c++filt's name is longer than the runtime writes" test "${#whole}" -gt 1000
"$INCLPROF" record -o rec ./deep >/dev/null 2>&1
"$INCLPROF" export --format csv -o rec.csv rec 2>/dev/null
check_eq "CSV: the whole name, 7 calls" "7 $whole" "$(python3 -c '
import csv, sys
for r in csv.DictReader(open("rec.csv")):
    if r["function"].startswith("int work<"):
        print(r["calls"], r["function"])')"
check "report --wide: the whole name on its row" sh -c '"$1" report --wide rec 2>/dev/null | grep -qF -- "$2"' _ "$INCLPROF" "$whole"
