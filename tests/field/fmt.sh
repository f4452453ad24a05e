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
  printf '#!/bin/sh\n# runs every test program of fmt in %s, in turn\ncd "%s" || exit 1\nfor t in $(cat "%s"); do echo "== $t"; "./$t"; printf "\\n== %%s exit %%s\\n" "$t" "$?"; done\n' \
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

# FMT_CG_TEST: the test program run under callgrind (plain) and its
# functions whose calls are compared, each given by the start of its name:
# fmt's formatting core (two of them with lambdas in their names), and two
# lambdas' own bodies: compute_width's for_each_codepoint callback (fmt's)
# and the one googletest's test filter runs per name (callgrind names its
# clone "[clone .isra.0]": counted as the function).
FMT_CG_TEST=format-impl-test
FMT_CG_FUNCTIONS='void fmt::v9::detail::vformat_to<char>(
char const* fmt::v9::detail::parse_replacement_field<char,
fmt::v9::detail::vformat_to<char>(fmt::v9::detail::buffer<char>&, fmt::v9::basic_string_view<char>, fmt::v9::basic_format_args<
fmt::v9::appender fmt::v9::detail::write_padded<(fmt::v9::align::type)2,
fmt::v9::detail::for_each_codepoint<fmt::v9::detail::compute_width(fmt::v9::basic_string_view<char>)::count_code_points>(fmt::v9::basic_string_view<char>, fmt::v9::detail::compute_width(fmt::v9::basic_string_view<char>)::count_code_points)::{lambda(
testing::internal::(anonymous namespace)::UnitTestFilter::MatchesName(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) const::{lambda('

# fmt_callgrind: FMT_CG_FUNCTIONS have in $FMT_CG_TEST's process the calls
# callgrind counts on the plain build, and each is an instrumented row (it
# has a source file).
fmt_callgrind() {
  cd "$dir/run/plain" || return
  valgrind --tool=callgrind --compress-strings=no --callgrind-out-file=cg.out \
    "$dir/plain/build/bin/$FMT_CG_TEST" >cg-run.txt 2>&1
  callgrind_calls cg.out | awk -F '\t' '{ sub(/ \[clone \]$/, "", $1); c[$1] += $2 }
    END { for (f in c) printf "%s\t%s\n", f, c[f] }' >callgrind.txt
  cd "$dir/run/rec"
  csv_rows "proc-$FMT_CG_TEST.csv" function calls file >fmt-cg.txt
  printf '%s\n' "$FMT_CG_FUNCTIONS" | while IFS= read -r start; do
    awk -F '\t' -v s="$start" 'index($1, s) == 1 { n++; c = $2 } END { print (n == 1 ? c : "matches " n + 0) }' \
      "$dir/run/plain/callgrind.txt"
    awk -F '\t' -v s="$start" 'index($1, s) == 1 { n++; c = $2; f = $3 } END {
      print (n == 1 ? c : "matches " n + 0) (f == "" ? " (not instrumented)" : "") }' fmt-cg.txt
  done | paste - - >cg-compared.txt
  check_eq "fmt: $FMT_CG_TEST: $(wc -l <cg-compared.txt) functions (vformat_to, parse_replacement_field, on_format_specs, write_padded, two lambdas' bodies) are instrumented and have callgrind's calls on the plain build ($(cut -f1 cg-compared.txt | paste -sd' ' -))" \
    "" "$(awk -F '\t' '$1 != $2 || $1 !~ /^[0-9]+$/ { printf "line %d: callgrind %s, inclprof %s; ", NR, $1, $2 }' cg-compared.txt)"
}

# fmt_reads_well: the recorded session (19 test programs, the same
# googletest functions in each) on a 120-column terminal: no line of the
# table, --tree, --tree --hot, --by module or --callers is wider; no two rows
# of the table read the same (Module and name); testing::Test::Run() has a
# row per test program that ran tests, each naming its executable; --by
# module lists every test program; the hot path is shown for every thread;
# the HTML page's butterfly pane (headless Chromium) shows the Test::Run()
# of the widest frame with its calls and time as the CSV has them, its
# caller testing::TestInfo::Run() with as many calls, and keeps it when the
# uninstrumented modules are folded.
fmt_reads_well() {
  cd "$dir/run/rec"
  wide=
  for view in table tree hot module callers; do
    case $view in
    table) set -- ;; tree) set -- --tree ;; hot) set -- --tree --hot ;; module) set -- --by module ;;
    callers) set -- --callers 'testing::Test::Run()' ;;
    esac
    COLUMNS=120 "$INCLPROF" report "$@" data >"report-$view.txt" 2>&1
    w=$(wc -L <"report-$view.txt")
    [ "$w" -le 120 ] || wide="$wide report $*: $w columns;"
  done
  check_eq "fmt: COLUMNS=120: no line of report, --tree, --tree --hot, --by module, --callers wider than 120 ($(wc -l <report-table.txt) + $(wc -l <report-tree.txt) lines...)" \
    "" "$wide"
  # the rows: what follows the El Excl% column (Module and name)
  awk 'on && !NF { exit } on { print substr($0, at) } !on && /El Excl%.*Function$/ { on = 1; at = index($0, "El Excl%") + 8 }' \
    report-table.txt >rows.txt
  check_eq "fmt: the table's $(wc -l <rows.txt) rows read differently at 120 columns (module and name)" "" \
    "$(sort rows.txt | uniq -d | head -5 | tr -s ' ' | paste -sd';' -)"
  ran=$(awk '/^== / && !/ exit / { t = $2 } /^\[==========\] [0-9]+ tests? from .* ran\.$/ && $2 > 0 { print t }' out.txt | sort)
  check_eq "fmt: testing::Test::Run() has one row per test program that ran tests, named by its executable ($(echo "$ran" | wc -l))" \
    "$ran" "$(awk '$2 == "testing::Test::Run()" { print $1 }' rows.txt | sort)"
  check_eq "fmt: report --by module lists every test program" "" \
    "$(for t in $(cat "$dir/plugin/fmt-tests.txt"); do grep -q "/$t\$" report-module.txt || printf '%s ' "$t"; done)"
  check_eq "fmt: report --tree --hot shows a hot path for each of the $(grep -c '^thread ' report-hot.txt) threads" \
    "$(grep -c '^thread ' report-hot.txt)" "$(grep -c '^  hot path: [0-9]* levels' report-hot.txt)"
  "$INCLPROF" export --format html -o page.html data 2>>export.err
  pics=$(sh "$INCLPROF_SRC/tests/viewers/pictures/setup.sh") || { fail "tests/viewers/pictures/setup.sh failed"; return; }
  # a browser that gave no answer at all (its start failed on a loaded
  # machine) is asked once more
  for try in 1 2; do
    node "$pics/butterfly-probe.mjs" page.html butterfly.png 'testing::Test::Run()' >probe.txt 2>probe.err
    [ -s probe.txt ] && break
    echo "# the butterfly probe gave no answer (try $try): $(head -c 300 probe.err)"
  done
  check_eq "fmt: Chromium opened the HTML page without errors, no request beyond it" "requests 0
errors 0" "$(tail -n 2 probe.txt)"
  grep -q '^errors 0$' probe.txt || sed 's/^/# probe: /' probe.err | head -20
  widest=$(csv_rows prof.csv function calls elapsed_inclusive_ns |
    awk -F '\t' '$1 == "testing::Test::Run()" && $3 > m { m = $3; c = $2 } END { print c, m }')
  check_eq "fmt: the butterfly pane shows the widest testing::Test::Run() with its calls and Elapsed Inclusive (ns), as the CSV has them" \
    "fn testing::Test::Run() $widest" "$(grep '^fn ' probe.txt | cut -d' ' -f1-4)"
  check_eq "fmt: its caller is testing::TestInfo::Run(), with as many calls" "caller testing::TestInfo::Run() ${widest% *}" \
    "$(grep '^caller ' probe.txt | cut -d' ' -f1-3)"
  check_eq "fmt: folding the uninstrumented modules keeps it and its callers" "$(grep -E '^(fn|caller) ' probe.txt || echo 'no pane')" \
    "$(sed -n 's/^fold \(fn\|caller\) /\1 /p' probe.txt)"
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
    # the program's own process (not a death-test child, which is its
    # clone until it executes the program again)
    pid=$(awk -F '\t' -v c="./$t" '$7 ~ /--gtest_internal_run_death_test/ { child[$1] = 1 } $7 == c { p[$1] = 1 }
      END { for (k in p) if (!(k in child)) print k }' facts.txt)
    calls=none
    [ -n "$pid" ] && "$INCLPROF" export -f csv --process "$pid" -o "proc-$t.csv" data 2>/dev/null &&
      calls=$(calls_of "proc-$t.csv" 'testing::TestInfo::Run()')
    printf '%s %s %s\n' "$t" "$((${ran:-0} + ${disabled:-0}))" "${calls:-0}" >>runs.txt
  done
  check_eq "fmt: in each test program's process, testing::TestInfo::Run() is called once per test run or disabled ($(awk '{ s += $2 } END { print s }' runs.txt) in all)" \
    "" "$(awk '$2 != $3 { printf "%s: %s tests, %s calls; ", $1, $2, $3 }' runs.txt)"
  deaths=$(awk -F '\t' '$7 ~ /--gtest_internal_run_death_test/' facts.txt | wc -l)
  # A death-test child ends as its test wants it to (abort(): a signal);
  # its trailer still counts what it wrote and dropped.
  check_eq "fmt: every process is recorded whole ($(wc -l <facts.txt) traces, $deaths of death-test children): clean ends (a death-test child's by its signal), no event dropped, no batch lost" \
    "" "$(awk -F '\t' '$7 ~ /--gtest_internal_run_death_test/ && $6 ~ /^NOT clean, exit reason: signal [0-9]+; [0-9]+ events written, 0 dropped$/ { $4 = 0; $6 = "clean" }
      $4 != 0 || $5 != 0 || $6 != "clean" { printf "pid %s (%s): %s dropped, %s lost, %s; ", $1, $7, $4, $5, $6 }' facts.txt | cut -c1-400)"
  fmt_callgrind
  fmt_reads_well
}
