#!/bin/sh
# report_scoped_names.sh - a function named without its parameter list is
# found when its scope has brackets too (tests/programs/latency/
# scoped_names.cc: "(anonymous namespace)::work", "Squares::operator()",
# each called 5 times, as the program counts): report --slowest, --callers
# and --callees take the name without the list, and find the program's
# calls.
. "$INCLPROF_SRC/tests/lib.sh"
g++ -fplugin="$INCLPROF_PLUGIN" -O2 -g -o scoped "$INCLPROF_SRC/tests/programs/latency/scoped_names.cc" ||
  fail "build scoped_names.cc"
own=$("$INCLPROF" record -o rec ./scoped 2>/dev/null)
check_eq "the program counts its own calls" "work 5 operator() 5" "$(echo "$own" | awk '{ print $1, $2, $3, $4 }')"

"$INCLPROF" report --slowest '(anonymous namespace)::work' --top 10 rec >slowest.txt 2>slowest.err
check_eq "report --slowest '(anonymous namespace)::work': the 5 calls" \
  "slowest: the 5 longest of 5 calls of (anonymous namespace)::work" \
  "$(sed -n 's/^\(slowest: .*::work\) by .*/\1/p' slowest.txt)"
"$INCLPROF" report --callers '(anonymous namespace)::work' rec >callers.txt 2>callers.err
check_eq "report --callers '(anonymous namespace)::work': Squares::operator() called it 5 times" \
  "5 Squares::operator()(long)" "$(awk '/^callers of/ { t = 1; next } t && $NF ~ /operator/ { print $1, $NF }' callers.txt)"
"$INCLPROF" report --callees 'Squares::operator()' rec >callees.txt 2>callees.err
check_eq "report --callees 'Squares::operator()': it called work 5 times" \
  "5 (anonymous namespace)::work(long)" \
  "$(sed -n 's/^ *\([0-9][0-9]*\) .* \((anonymous namespace)::work(long)\)$/\1 \2/p' callees.txt)"
done_testing
