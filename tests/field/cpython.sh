# cpython.sh - CPython 3.11 in `make field` (sourced by field.sh): the
# interpreter built from Debian's python3.11 source (the upstream tree), run
# in its build directory.

# Extension modules no test of CPYTHON_TESTS needs, left out of the build
# (a test that would use one is skipped alike plain and recorded).
CPYTHON_SKIPPED_MODULES="_decimal _ctypes _ctypes_test _sqlite3 _tkinter _curses _curses_panel _dbm _gdbm readline
  _ssl _hashlib nis _lzma _bz2 _elementtree pyexpat _codecs_cn _codecs_hk _codecs_iso2022 _codecs_jp _codecs_kr
  _codecs_tw _multibytecodec audioop _testbuffer _testmultiphase _xxtestfuzz xxlimited xxlimited_35 _uuid _crypt"

# build_cpython FLAVOUR DIR: ./python at the flavour's -O2 (OPT keeps
# CPython's -fwrapv and NDEBUG, not its -O3), without pip and the modules of
# CPYTHON_SKIPPED_MODULES (configure's py_cv_module_NAME=n/a).
build_cpython() {
  unpack python3.11 "$2" &&
    # shellcheck disable=SC2046
    (cd "$2" && ./configure -q --without-ensurepip OPT="-DNDEBUG -fwrapv" CC=gcc CFLAGS="$(flags "$1")" \
      LDFLAGS="$(ldflags "$1")" $(for m in $CPYTHON_SKIPPED_MODULES; do echo "py_cv_module_$m=n/a"; done) &&
      make -j2 -s) >"$2/build.log" 2>&1
  BIN=$2/python
}

CPYTHON_CALLS=100000
# The regression test files run plain and recorded (extra_cpython; the
# environment may name others).
: "${CPYTHON_TESTS:=test_subprocess test_threading test_os test_signal test_fork1 test_wait4 test_list test_dict test_json test_re test_math test_exceptions}"

run_cpython() { "$@" "$INCLPROF_SRC/tests/field/work.py" "$CPYTHON_CALLS"; }

# callgrind_calls OUT: "NAME<TAB>CALLS" for every function callgrind's
# output OUT (--compress-strings=no) saw called, clones under their source
# name, recursion levels ('2) together.
callgrind_calls() {
  awk '/^cfn=/ { f = substr($0, 5); sub(/'"'"'[0-9]+$/, "", f); gsub(/\.(constprop|part|cold|isra)\.[0-9]+/, "", f) }
    /^calls=/ { split(substr($0, 7), w, " "); c[f] += w[1] }
    END { for (f in c) printf "%s\t%s\n", f, c[f] }' "$1" | sort
}

# regrtest_results EXE [DATA]: the result of every test of $CPYTHON_TESTS,
# run one file after another, each file recorded into DATA/FILE with DATA.
regrtest_results() {
  for t in $CPYTHON_TESTS; do
    if [ -n "${2:-}" ]; then regrtest_file "$t" "$INCLPROF" record -o "$2/$t" -- "$1"; else regrtest_file "$t" "$1"; fi
  done
}

# regrtest_file FILE CMD...: the result of each test of FILE run by CMD -m
# test -v (at most $CPYTHON_TEST_TIMEOUT seconds, default 600: status 124),
# and its exit status, each line led by FILE (regrtest_parse); its whole
# output in regrtest-FILE.txt.
regrtest_file() {
  t=$1
  shift
  timeout -k 10 "${CPYTHON_TEST_TIMEOUT:-600}" "$@" -m test -v "$t" >"regrtest-$t.txt" 2>&1
  rc=$?
  regrtest_parse "$t"
  echo "$t: exit $rc"
}

# regrtest_parse FILE: the result of each test in regrtest-FILE.txt, the
# count of tests run and the result line, without times, each line led by
# FILE.  A test's result is the first result word after its "... " (after
# its docstring's line when it has one): lines between (asyncio's notes on callbacks slower than 0.1 s, which a recorded
# run, being slower, prints more of) do not hide it.
regrtest_parse() {
  tr -d '\r' <"regrtest-$1.txt" | awk -v f="$1" '
    function result(s) { return match(s, /^(ok|FAIL|ERROR|skipped|expected failure|unexpected success)/) ? substr(s, 1, RLENGTH) : "" }
    match($0, /^test[A-Za-z0-9_]* \([A-Za-z0-9_.]*\) \.\.\. /) {
      name = substr($0, 1, RLENGTH - 5); r = result(substr($0, RLENGTH + 1))
      if (r != "") { print f ": " name " " r; name = "" }
      next
    }
    /^test[A-Za-z0-9_]* \([A-Za-z0-9_.]*\)$/ { name = $0; next } # its docstring follows
    name != "" && (r = result($0)) != "" { print f ": " name " " r; name = ""; next }
    name != "" && match($0, / \.\.\. /) && (r = result(substr($0, RSTART + 5))) != "" { print f ": " name " " r; name = ""; next }
    /^Ran [0-9]* tests? in / { sub(/ in .*/, ""); print f ": " $0; next }
    /^Tests result: / { print f ": " $0 }'
}

# extra_cpython: the C functions run for each call of step() (the calls
# with 2N calls less those with N: what start-up and the environment cost
# cancels out) have callgrind's counts on the plain interpreter; the
# regression test files give the same results recorded as plain.
extra_cpython() {
  cd "$dir/run/plain" || return
  for n in "$CPYTHON_CALLS" "$((2 * CPYTHON_CALLS))"; do
    valgrind --tool=callgrind --compress-strings=no --callgrind-out-file="cg-$n.out" "$(exe plain)" \
      "$INCLPROF_SRC/tests/field/work.py" "$n" >"cg-run-$n.txt" 2>&1
    callgrind_calls "cg-$n.out" >"callgrind-$n.txt"
  done
  cd "$dir/run/rec" && rm -rf data-2n &&
    "$INCLPROF" record -o data-2n -- "$(exe plugin)" "$INCLPROF_SRC/tests/field/work.py" "$((2 * CPYTHON_CALLS))" >out-2n.txt 2>&1 &&
    "$INCLPROF" export -f csv -o prof-2n.csv data-2n 2>>export.err
  rm -rf data-2n
  # per function: callgrind's calls for N and 2N, then inclprof's
  csv_rows prof.csv function calls | sort >inclprof-1.txt
  csv_rows prof-2n.csv function calls | sort >inclprof-2.txt
  awk -F '\t' -v n="$CPYTHON_CALLS" '
    FILENAME ~ /callgrind-/ && FNR == 1 { part++ }
    FILENAME ~ /inclprof-1/ { o1[$1] = $2; next }
    FILENAME ~ /inclprof-2/ { o2[$1] = $2; next }
    part == 1 { c1[$1] = $2; next }
    part == 2 { if ($2 - c1[$1] >= n && ($1 in o2)) print $1 "\t" $2 - c1[$1] "\t" o2[$1] - o1[$1] }' \
    inclprof-1.txt inclprof-2.txt "$dir/run/plain/callgrind-$CPYTHON_CALLS.txt" \
    "$dir/run/plain/callgrind-$((2 * CPYTHON_CALLS)).txt" | sort >compared.txt
  check_eq "cpython: builtin_divmod is called once per call of step() ($CPYTHON_CALLS), as callgrind counts on the plain interpreter" \
    "$(awk -F '\t' '$1 == "builtin_divmod" { print $2 }' "$dir/run/plain/callgrind-$CPYTHON_CALLS.txt")" "$(calls_of prof.csv builtin_divmod)"
  check_eq "cpython: the $(wc -l <compared.txt) interpreter functions that $CPYTHON_CALLS more calls of step() run $CPYTHON_CALLS times more or oftener on the plain interpreter (callgrind) run as often more recorded" \
    "" "$(awk -F '\t' '$2 != $3 { printf "%s: callgrind +%s, inclprof +%s; ", $1, $2, $3 }' compared.txt | cut -c1-600)"
  mkdir -p "$dir/run/tests-plain" "$dir/run/tests-rec"
  cd "$dir/run/tests-plain" && t0=$(now) && regrtest_results "$(exe plain)" >results.txt && since "$t0" >time.txt
  cd "$dir/run/tests-rec" && rm -rf data && mkdir data && t0=$(now) &&
    regrtest_results "$(exe plugin)" "$dir/run/tests-rec/data" >results.txt && since "$t0" >time.txt
  for t in $CPYTHON_TESTS; do
    check_eq "cpython: $t recorded gives the plain results ($(grep -c "^$t: .* ok$" "$dir/run/tests-plain/results.txt") tests ok; $(cat "$dir/run/tests-plain/time.txt") s plain for all, $(cat time.txt) s recorded)" \
      "$(grep "^$t: " "$dir/run/tests-plain/results.txt")" "$(grep "^$t: " results.txt)"
  done
  trace_facts data/* >facts.txt
  # The tests end some children by a signal (kill(), terminate(), abort(),
  # SIGINT): the runtime's handler of a fatal signal writes the trailer,
  # which must count no event dropped; SIGKILL, which no handler sees,
  # leaves no trailer, and every batch the child wrote must still be read.
  signalled=$(awk -F '\t' '$6 ~ /^NOT clean, exit reason: signal [0-9]+; [0-9]+ events written, 0 dropped$/' facts.txt | wc -l)
  killed=$(awk -F '\t' '$6 ~ /^no trailer: / && $5 == 0' facts.txt | wc -l)
  check_eq "cpython: every process of the regression tests is recorded whole ($(wc -l <facts.txt) traces): clean ends (by a signal: $signalled, their trailers counting no event dropped; by SIGKILL, without a trailer: $killed), no event dropped, no batch lost" \
    "" "$(awk -F '\t' '$6 ~ /^NOT clean, exit reason: signal [0-9]+; [0-9]+ events written, 0 dropped$/ { $4 = 0; $6 = "clean" }
      $6 ~ /^no trailer: / && $5 == 0 { next }
      $4 != 0 || $5 != 0 || $6 != "clean" { printf "pid %s (%s): %s dropped, %s lost, %s; ", $1, substr($7, 1, 60), $4, $5, $6 }' facts.txt | cut -c1-600)"
  suite_row "cpython: $(echo "$CPYTHON_TESTS" | wc -w) regression files" "$(cat "$dir/run/tests-plain/time.txt")" "$(cat time.txt)" data/*
}
