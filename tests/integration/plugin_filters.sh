#!/bin/sh
# plugin_filters.sh - no_instrument_function, include/exclude
# globs and regexes, file rules, min-size with the loop rule, system headers,
# filter files, callsites=, exclude-calls on calls through a pointer, the
# report file, verbose, and errors for unknown
# keys and bad values.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"
export LOGRT_TABLE=1
ALL="cold_c debug_dump hot_a hot_b main small_loop tiny"

# instrumented ARGS...: compile filt.c with plugin args, run, print the sorted
# names of entered functions.
instrumented() {
  args=""
  for a in "$@"; do args="$args -fplugin-arg-inclprof-$a"; done
  # shellcheck disable=SC2086
  pcc filt "$PP/filt.c" -O2 -isystem "$PP/sysinc" $args || { echo "COMPILE-FAILED"; return; }
  run log ./filt >/dev/null
  [ -f log ] || : >log   # nothing instrumented: the unit does not register
  awk '$1=="E"{print $2}' log | sort -u | paste -sd' ' -
}

check_eq "default: all but no_instrument_function and system header" "$ALL" "$(instrumented)"
check_eq "system-headers=yes instruments the header function" \
  "cold_c debug_dump hot_a hot_b main small_loop sys_helper tiny" "$(instrumented system-headers=yes)"
check_eq "include glob" "hot_a hot_b" "$(instrumented 'include=hot_*')"
check_eq "include globs split on commas" "hot_b main" "$(instrumented 'include=hot_b,main')"
check_eq "exclude regex" "hot_a hot_b main small_loop tiny" "$(instrumented 'exclude=re:^(cold|debug)_')"
check_eq "last matching rule wins" "hot_b" "$(instrumented 'include=hot_*' 'exclude=hot_a')"
check_eq "exclude-file by base name" "" "$(instrumented exclude-file=filt.c)"
check_eq "include-file of another file" "" "$(instrumented 'include-file=*/other.c')"
check_eq "include-file regex of this file" "$ALL" "$(instrumented 'include-file=re:plugin/filt\.c$')"
check_eq "min-size drops small functions, keeps loops" "main small_loop" "$(instrumented min-size=8)"
check_eq "min-size: small_loop flagged as kept for its loop" "$((9 + STUB))" \
  "$(awk '$1=="T" && $4=="small_loop"{print $3}' log)"
check_eq "an include rule overrides min-size" "main small_loop tiny" "$(instrumented min-size=8 include=tiny,main,small_loop)"

printf '# only the hot path\ninclude = hot_*\n\nexclude=re:_b$\ncallsites=none\n' > rules.txt
check_eq "filter file" "hot_a" "$(instrumented filter=rules.txt)"
check_eq "callsites=none from the filter file: no call-site probes" 0 "$(grep -c '^C ' log)"

instrumented >/dev/null
check_eq "callsites=external (default): printf wrapped, hot_a not" "1 0" "$(count C printf log) $(count C hot_a log)"
instrumented callsites=all >/dev/null
check_eq "callsites=all: hot_a wrapped too, callee entry nested" "C hot_a|E hot_a|X hot_a|R hot_a" \
  "$(grep -E '^[CREX] hot_a$' log | paste -sd'|' -)"
check_eq "callsites=all: no_instrument_function callee wrapped" "1 1" "$(count C quiet log) $(count R quiet log)"
# A static function instrumented in the same unit: its own probes only (its
# call sites could not be told from another unit's function of that name),
# so callsites=all gives it one row, with the program's 100 calls.
cat >static_callee.c <<'SRC'
#include <stdio.h>
static __attribute__((noinline)) int f(int x) { return x * 3 + 1; }
int main(void) { long s = 0; for (int i = 0; i < 100; i++) s += f(i); printf("%ld\n", s); return 0; }
SRC
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-callsites=all static_callee.c -o static_callee
"$INCLPROF" record -o static_rec ./static_callee >/dev/null 2>&1
check_eq "callsites=all: a static callee instrumented here has one row, 100 calls" "100" \
  "$("$INCLPROF" report static_rec 2>/dev/null | awk '$NF == "f" { print $1 }' | paste -sd' ' -)"

# exclude-calls reaches calls through a pointer too: a function of the unit
# excluded with its calls (as suggest's filter writes it) records nothing
# when called by pointer; one only excluded keeps its indirect call-site
# probes (its 1000 calls by pointer, as callgrind would count them).
cat >by_pointer.c <<'SRC'
#include <stdio.h>
static __attribute__((noinline)) int g(int x) { return x * 2; }
__attribute__((noinline)) int f(int x) { return x + 1; }
int (*volatile fp)(int) = f;
int (*volatile gp)(int) = g;
int main(void) { long s = 0; for (int i = 0; i < 1000; i++) s += fp(i) + gp(i); printf("%ld\n", s); return 0; }
SRC
printf 'exclude = f, g\nexclude-calls = g\n' >by_pointer.filter
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-filter=by_pointer.filter by_pointer.c -o by_pointer
"$INCLPROF" record -o by_pointer_rec ./by_pointer >by_pointer.out 2>/dev/null
check_eq "by pointer: the program's output" 1499500 "$(cat by_pointer.out)"
check_eq "by pointer: f (excluded, its calls not) keeps its 1000 calls; g (calls excluded too) has no row" \
  "1000 f" "$("$INCLPROF" report by_pointer_rec 2>/dev/null | awk '$NF == "f" || $NF == "g" { print $1, $NF }' | paste -sd' ' -)"
check_eq "by pointer: events: main's 2, printf's 2 and f's 2000" 2004 \
  "$("$INCLPROF" info by_pointer_rec | sed -n 's/^events: *\([0-9]*\).*/\1/p')"

rm -f report.txt
instrumented report=report.txt 'exclude=cold_*' min-size=4 >/dev/null
check "report: header line" grep -q '^# inclprof report for .*filt\.c$' report.txt
check "report: main instrumented with call sites" grep -Eq '^instrumented	main	.*filt\.c:[0-9]+	size=[0-9]+	callsites=[1-9]' report.txt
check "report: quiet skipped for its attribute" grep -q '^skipped	quiet	.*	no_instrument_function attribute$' report.txt
check "report: cold_c skipped by the rule" grep -q '^skipped	cold_c	.*	excluded by argument: exclude=cold_\*$' report.txt
check "report: tiny skipped by min-size" grep -Eq '^skipped	tiny	.*	smaller than min-size \(size [0-9]+, no loops\)$' report.txt
check "report: small_loop kept for its loop" grep -Eq '^instrumented	small_loop	.*size=[0-9]+ loops	' report.txt
check "report: system header function skipped" grep -q '^skipped	sys_helper	.*sysfn\.h:[0-9]*	declared in a system header$' report.txt

gcc -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-verbose -O2 -c "$PP/calls.c" -o /dev/null 2>verbose.txt
check "verbose: helper reported as inlined into leaf at -O2" grep -q '^inclprof: skipped	helper	.*	no out-of-line copy (inlined into leaf)$' verbose.txt
check "verbose: leaf instrumented" grep -q '^inclprof: instrumented	leaf	' verbose.txt

# Errors: one line naming the problem, then GCC's "failed to initialize plugin".
gcc -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-bogus=1 -c "$PP/calls.c" -o x.o 2>err.txt; rc=$?
check "unknown key fails the compile" test "$rc" -ne 0
check "unknown key lists the valid keys" grep -q "inclprof: argument: unknown key 'bogus'; valid keys: include, exclude, include-file, exclude-file, exclude-calls, noinline, min-size, filter, callsites, report, list-instrumented, known-instrumented, system-headers, verbose, tail-recursion, partial-inlining, probe-form, tail-calls" err.txt
check "GCC says the plugin failed to initialize" grep -q "failed to initialize plugin" err.txt
gcc -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-callsites=most -c "$PP/calls.c" -o x.o 2>err.txt
check "bad callsites value" grep -q "bad value 'most' for callsites (expected none, external or all)" err.txt
gcc -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-exclude='re:(' -c "$PP/calls.c" -o x.o 2>err.txt
check "bad regex" grep -q "bad regular expression '('" err.txt
printf 'include=a\nmin-size=lots\n' > bad.txt
gcc -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-filter=bad.txt -c "$PP/calls.c" -o x.o 2>err.txt
check "filter-file error names file and line" grep -q "inclprof: bad.txt:2: bad value 'lots' for min-size" err.txt
check "no object written after an error" test ! -e x.o
done_testing
