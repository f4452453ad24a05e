# sqlite_tcl.sh - a subset of SQLite's own TCL test suite in `make field`
# (sourced by field.sh; run by extra_sqlite after field sqlite): the
# testfixture of Debian's sqlite3 source, built plain and with the plugin,
# runs each test file of SQLITE_TESTS plain and recorded.
SQLITE_TESTS="select1 select2 select3 insert insert2 update delete where where2 join expr func trigger1 index view subquery"

# build_sqlitetcl FLAVOUR DIR: testfixture (the library and its TCL test
# commands) in DIR.
build_sqlitetcl() {
  unpack sqlite3 "$2" &&
    (cd "$2" && ./configure -q --with-tcl=/usr/lib/tcl8.6 CC=gcc CFLAGS="$(flags "$1")" LDFLAGS="$(ldflags "$1")" &&
      make -j2 testfixture) >"$2/build.log" 2>&1
  BIN=$2/testfixture
}

# sqlite_tcl_results TESTFIXTURE [DATA]: each test file's errors and tests
# ("0 errors out of 123 tests") and its failures, each run in a directory of
# its own under the current one; with DATA, recorded into DATA/FILE (each
# trace bounded to 1 GB).
sqlite_tcl_results() {
  for t in $SQLITE_TESTS; do
    rm -rf "tcl-$t" && mkdir "tcl-$t" && cd "tcl-$t" || return 1
    if [ -n "${2:-}" ]; then
      "$INCLPROF" record --max-size 1G -o "$2/$t" -- "$1" "$W/sqlite/tcl-plain/test/$t.test" >out.txt 2>&1
    else
      "$1" "$W/sqlite/tcl-plain/test/$t.test" >out.txt 2>&1
    fi
    sed -n "s/^\([0-9]* errors* out of [0-9]* tests\).*/$t: \1/p; s/^! \(.*\)/$t: failed \1/p" out.txt
    cd ..
  done
}

# extra_sqlite: the subset of the TCL suite recorded gives the plain results.
extra_sqlite() {
  for fl in plain plugin; do
    key=$(build_key sqlitetcl "$fl")
    [ -x "$dir/tcl-$fl/testfixture" ] && [ "$(cat "$dir/tcl-$fl/.key" 2>/dev/null)" = "$key" ] && continue
    BIN=
    build_sqlitetcl "$fl" "$dir/tcl-$fl"
    [ -x "$BIN" ] || { fail "sqlite: testfixture ($fl) does not build: $(tail -3 "$dir/tcl-$fl/build.log" | tr '\n' ' ')"; return; }
    echo "$key" >"$dir/tcl-$fl/.key"
  done
  mkdir -p "$dir/run/tcl-plain" "$dir/run/tcl-rec"
  cd "$dir/run/tcl-plain" && t0=$(now) && sqlite_tcl_results "$dir/tcl-plain/testfixture" >results.txt && since "$t0" >time.txt
  cd "$dir/run/tcl-rec" && rm -rf data && mkdir data && t0=$(now) &&
    sqlite_tcl_results "$dir/tcl-plugin/testfixture" "$dir/run/tcl-rec/data" >results.txt && since "$t0" >time.txt
  check_eq "sqlite: $(echo "$SQLITE_TESTS" | wc -w) files of its TCL test suite give the plain results recorded ($(awk '{ s += $6 } END { print s + 0 }' "$dir/run/tcl-plain/results.txt") tests; $(cat "$dir/run/tcl-plain/time.txt") s plain, $(cat time.txt) s recorded)" \
    "$(cat "$dir/run/tcl-plain/results.txt")" "$(cat results.txt)"
  suite_row "sqlite: TCL suite subset" "$(cat "$dir/run/tcl-plain/time.txt")" "$(cat time.txt)" data/*
  rm -rf data
}
