# fmt.sh - fmt's googletest suite in `make field` (sourced by field.sh):
# Debian's fmtlib source (its patches build /usr/src/googletest into the
# tests with the same flags), compiled as C++20.

# build_fmt FLAVOUR DIR: the library and every test program; BIN is a
# script that runs each test program in turn (fmt-tests.txt names them).
build_fmt() {
  rm -rf "$2" && debian_src fmtlib "$2/src" &&
    (cmake -S "$2/src" -B "$2/build" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_STANDARD=20 -DFMT_DOC=OFF -DFMT_TEST=ON \
      -DFMT_PEDANTIC=OFF -DCMAKE_C_FLAGS="$(flags "$1")" -DCMAKE_CXX_FLAGS="$(flags "$1")" \
      -DCMAKE_EXE_LINKER_FLAGS="$(flags "$1")" && make -C "$2/build" -j2) >"$2/build.log" 2>&1 || return 1
  (cd "$2/build/bin" && ls | grep -e '-test$' | sort) >"$2/fmt-tests.txt"
  printf '#!/bin/sh\n# runs every test program of fmt in %s, in turn\ncd "%s" || exit 1\nfor t in $(cat "%s"); do echo "== $t"; "./$t"; echo "== $t exit $?"; done\n' \
    "$2/build/bin" "$2/build/bin" "$2/fmt-tests.txt" >"$2/fmt-tests"
  chmod +x "$2/fmt-tests"
  BIN=$2/fmt-tests
}

# run_fmt CMD...: every test program (CMD is the script build_fmt wrote, or
# inclprof record ... -- it); prints each program's test results and gtest's
# summary without the times, and its exit status.
run_fmt() {
  "$@" 2>&1 | sed 's/ ([0-9]* ms[^)]*)$//' |
    grep -E '^== |^\[ *(OK|FAILED|DISABLED|PASSED) *\]|tests? from .* ran|DISABLED TESTS?$'
}

# extra_fmt: every program passes every test recorded (death tests, whose
# child gtest starts with clone() in its "threadsafe" style, included), and
# in each program's own process testing::TestInfo::Run() is called once per
# test that ran or is disabled, as its gtest output counts them.
extra_fmt() {
  cd "$dir/run/rec"
  programs=$(wc -l <"$dir/plugin/fmt-tests.txt")
  check_eq "fmt: each of the $programs test programs exits 0 recorded" "$programs" "$(grep -c '^== .* exit 0$' out.txt)"
  check_eq "fmt: every test that ran passed recorded ($(awk '/^\[  PASSED  \]/ { s += $4 } END { print s + 0 }' out.txt) tests)" \
    "$(sed -n 's/^\[==========\] \([0-9]*\) tests* from .* ran\.$/\1/p' out.txt | awk '{ s += $1 } END { print s + 0 }')" \
    "$(awk '/^\[  PASSED  \]/ { s += $4 } END { print s + 0 }' out.txt)"
  trace_facts data >facts.txt
  : >runs.txt
  for t in $(cat "$dir/plugin/fmt-tests.txt"); do
    ran=$(awk -v t="$t" '$0 == "== " t { on = 1; next } /^== / { on = 0 } on && /^\[==========\] [0-9]+ tests? from .* ran\.$/ { print $2 }' out.txt)
    disabled=$(awk -v t="$t" '$0 == "== " t { on = 1; next } /^== / { on = 0 } on && /^ *YOU HAVE [0-9]+ DISABLED TESTS?$/ { print $3 }' out.txt)
    pid=$(awk -F '\t' -v c="./$t" '$7 == c { print $1 }' facts.txt)
    calls=none
    [ -n "$pid" ] && "$INCLPROF" export -f csv --process "$pid" -o "proc-$t.csv" data 2>/dev/null &&
      calls=$(calls_of "proc-$t.csv" 'testing::TestInfo::Run()')
    printf '%s %s %s\n' "$t" "$((${ran:-0} + ${disabled:-0}))" "${calls:-0}" >>runs.txt
  done
  check_eq "fmt: in each test program's process, testing::TestInfo::Run() is called once per test run or disabled ($(awk '{ s += $2 } END { print s }' runs.txt) in all)" \
    "" "$(awk '$2 != $3 { printf "%s: %s tests, %s calls; ", $1, $2, $3 }' runs.txt)"
  deaths=$(awk -F '\t' '$7 ~ /--gtest_internal_run_death_test/' facts.txt | wc -l)
  check_eq "fmt: every process is recorded whole ($(wc -l <facts.txt) traces, $deaths of death-test children): clean ends, no event dropped, no batch lost" \
    "" "$(awk -F '\t' '$4 != 0 || $5 != 0 || $6 != "clean" { printf "pid %s (%s): %s dropped, %s lost, %s; ", $1, $7, $4, $5, $6 }' facts.txt | cut -c1-400)"
}
