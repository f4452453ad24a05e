#!/bin/sh
# plugin_lambdas.sh - lambdas are instrumented like any function (lambdas.cc:
# called directly, generic, in a function template, in a std::function, run
# by two std::threads, std::sort's comparator): each has a row named as the
# demangler names it, with its file and line, and the calls the lambda counts
# itself; at -O0, and at -O2 with noinline= keeping lambdas out of line.  At
# -O2 without it the comparator is inlined into the library's sort and report
# --missing says so.  An include rule overrides the system-header rule, and
# the plugin's report says which rule over which.
. "$INCLPROF_SRC/tests/lib.sh"
need python3
PP="$INCLPROF_SRC/tests/programs/plugin"
# rows: "LINE CALLS NAME" of every row named like a lambda, from rec.csv;
# the lambda's number in its function (#N) is left out: GCC 16 counts the
# lambdas of each signature apart, older GCCs all of them
rows() {
  python3 -c 'import csv, re
for r in csv.DictReader(open("rec.csv")):
    if "{lambda(" in r["function"] and r["file"].endswith("lambdas.cc"):
        print(r["line"], r["calls"], re.sub(r"#[0-9]+", "#N", r["function"]))' | sort -n
}
# want: the rows the program's own counts (out.txt) call for
want() {
  # direct, generic int and double, template, std::function, threads, comparisons
  set -- $(awk '{ for (i = 2; i <= NF; i += 2) print $i }' out.txt)
  printf '%s\n' "17 $(($4 / 2)) twice<int>(int)::{lambda(int)#N}::operator()(int) const" \
    "17 $(($4 / 2)) twice<long>(long)::{lambda(long)#N}::operator()(long) const" \
    "27 $1 main::{lambda(int, int)#N}::operator()(int, int) const" \
    "31 $3 auto main::{lambda(auto:1)#N}::operator()<double>(double) const" \
    "31 $2 auto main::{lambda(auto:1)#N}::operator()<int>(int) const" \
    "45 $5 main::{lambda(int)#N}::operator()(int) const" \
    "52 $6 main::{lambda(int)#N}::operator()(int) const" \
    "63 $7 main::{lambda(int, int)#N}::operator()(int, int) const" | sort -n
}

for build in "-O0" "-O2 -fplugin-arg-inclprof-noinline=*{lambda*"; do
  rm -f lambdas report.txt
  # shellcheck disable=SC2086
  g++ -std=c++17 -fplugin="$INCLPROF_PLUGIN" $build -fplugin-arg-inclprof-report=report.txt \
    "$PP/lambdas.cc" -o lambdas -pthread || fail "$build: build lambdas.cc"
  rm -rf rec && "$INCLPROF" record -o rec ./lambdas >out.txt 2>/dev/null || fail "$build: record"
  "$INCLPROF" export --format csv -o rec.csv rec 2>/dev/null
  check "$build: the program ran" grep -q '^direct 1000 .* comparisons [1-9]' out.txt
  check_eq "$build: every lambda's row has the calls it counted itself" "$(want)" "$(rows)"
  check_eq "$build: no lambda reported as compiler-generated" 0 \
    "$(grep 'lambda' report.txt | grep -c 'compiler-generated')"
done

g++ -std=c++17 -O2 -fplugin="$INCLPROF_PLUGIN" "$PP/lambdas.cc" -o lambdas -pthread || fail "-O2: build"
rm -rf rec && "$INCLPROF" record -o rec ./lambdas >out.txt 2>/dev/null || fail "-O2: record"
"$INCLPROF" report --missing rec >missing.txt 2>/dev/null
check "-O2: report --missing: the comparator inlined into the library's sort" grep -Eq \
  'lambdas\.cc:63 +main::\{lambda\(int, int\)#[0-9]+\}::operator\(\)\(int, int\) const +inlined into .*std::' missing.txt

# An include name rule instruments what the system-header rule skips.
g++ -std=c++17 -O0 -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-include='main,*std::sort*' \
  -fplugin-arg-inclprof-report=report.txt "$PP/lambdas.cc" -o lambdas -pthread || fail "include: build"
check "include=std::sort*: instrumented over the system-header rule" grep -Eq \
  '^instrumented	void std::sort<.*	included by argument: include=main,\*std::sort\* over: declared in a system header$' \
  report.txt
check "the rest of the system header still skipped" grep -Eq \
  '^skipped	std::vector<int, std::allocator<int> >::begin\(\)	.*	declared in a system header$' report.txt
rm -rf rec && "$INCLPROF" record -o rec ./lambdas >out.txt 2>/dev/null
"$INCLPROF" export --format csv -o rec.csv rec 2>/dev/null
check_eq "include: std::sort has a row of 1 call" 1 \
  "$(python3 -c 'import csv
print(sum(int(r["calls"]) for r in csv.DictReader(open("rec.csv")) if r["function"].startswith("void std::sort<") and r["file"]))')"
done_testing
