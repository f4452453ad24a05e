#!/bin/sh
# convert_diff.sh - `inclprof diff` on tests/programs/convert/slowfn.c: five
# runs of the build against five runs with `--slow gamma_` (gamma_ does three
# times its work) flag gamma_ and nothing else; five runs against five more
# runs of the same build flag nothing.  The runs of both sides alternate, so
# a change of the machine's load hits both alike.  The runs are compared on
# Application time (`--value application`, the intervals in which the kernel
# worked for the thread left out): on a loaded machine a function's Elapsed
# time also holds the time its thread waited for a CPU, which varies from run
# to run far more than a 3x slowdown of a 30 ms function.  Each function is
# called 2000 times for about 15 us: Application time leaves out a whole
# interval in which the kernel worked, so calls that short keep nearly all of
# their time under load, and 2000 of them average out the ones that lose it
# (with 200 calls of 0.15 ms, gamma_'s slowed calls of 0.45 ms lost so much
# at a load of 10 that one run in three marked nothing).
# --threshold 5 asks for changes of at least 5 % of the session (gamma_'s is
# about 35 %).
# Also: functions on one side only, CSV, the pprof files (read by
# go tool pprof, -diff_base among them, and written whole or not at all)
# and one-line errors on bad input.
# timing: its checks compare times measured within one run, with margins;
# a heavily loaded machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"
src=$INCLPROF_SRC/tests/programs/convert/slowfn.c
gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$src" -o slowfn || { fail "build slowfn with the plugin"; exit 1; }
mkdir other && gcc -O2 -fplugin="$INCLPROF_PLUGIN" -Dgamma_=gamma2 "$src" -o other/slowfn ||
  { fail "build the variant of slowfn with gamma_ renamed"; exit 1; }
gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$src" -o notslow

for i in 1 2 3 4 5; do
  "$INCLPROF" record -o base$i -- ./slowfn >/dev/null 2>&1
  "$INCLPROF" record -o slow$i -- ./slowfn --slow gamma_ >/dev/null 2>&1
  "$INCLPROF" record -o same$i -- ./slowfn >/dev/null 2>&1
done
"$INCLPROF" record -o renamed -- ./other/slowfn >/dev/null 2>&1
"$INCLPROF" record -o notslow1 -- ./notslow >/dev/null 2>&1
B="base1 base2 base3 base4 base5"

if "$INCLPROF" info base1 | grep -qi 'transitions*[^a-z]*none'; then
  ok "transition mode none: Application time is Elapsed time; skipping the noise checks"
else
  # shellcheck disable=SC2086
  "$INCLPROF" diff $B -- slow1 slow2 slow3 slow4 slow5 --value application --threshold 5 --pprof p >slow.txt 2>slow.err
  check_eq "diff 5 + 5 runs with gamma_ slowed: exit 0" 0 $?
  check_eq "exactly gamma_ is flagged" "gamma_" "$(awk '$1 == "*" {print $NF}' slow.txt | tr '\n' ' ' | sed 's/ $//')"
  check_eq "it is the first row (the largest change)" "gamma_" "$(awk 'f {print $NF; exit} /^ *Calls base/ {f=1}' slow.txt)"
  check "the summary counts one change beyond noise" grep -q '^1 change(s) beyond noise$' slow.txt
  # shellcheck disable=SC2086
  "$INCLPROF" diff $B -- same1 same2 same3 same4 same5 --value application --threshold 5 >same.txt 2>&1
  check_eq "diff 5 + 5 runs of the same build: nothing flagged" "0" "$(awk '$1 == "*"' same.txt | wc -l)"
  check "the summary says so" grep -q '^0 change(s) beyond noise$' same.txt
  # 3 + 3 runs: one run slowed by the machine widens Welch's spread enough
  # to hide a change from three runs; three sets of runs (two of the runs
  # above, one recorded now) must never mark another function, and at least
  # one of them marks gamma_ - on a machine busy enough to hide it from all
  # three, up to four more sets, each with a new pair of runs.
  "$INCLPROF" record -o base6 -- ./slowfn >/dev/null 2>&1
  "$INCLPROF" record -o slow6 -- ./slowfn --slow gamma_ >/dev/null 2>&1
  "$INCLPROF" record -o base7 -- ./slowfn >/dev/null 2>&1
  "$INCLPROF" record -o slow7 -- ./slowfn --slow gamma_ >/dev/null 2>&1
  found="" others="" sets=0
  # three_runs A B C: the diff of base A B C against slow A B C
  three_runs() {
    sets=$((sets + 1))
    "$INCLPROF" diff base$1 base$2 base$3 -- slow$1 slow$2 slow$3 --value application --threshold 5 >three.txt 2>&1
    marked=$(awk '$1 == "*" {print $NF}' three.txt | tr '\n' ' ' | sed 's/ $//')
    case "$marked" in gamma_) found=1 ;; "") ;; *) others="$others [$*: $marked]" ;; esac
  }
  three_runs 1 2 3
  three_runs 3 4 5
  three_runs 5 6 7
  for i in 8 9 10 11; do
    [ -n "$found" ] && break
    "$INCLPROF" record -o base$i -- ./slowfn >/dev/null 2>&1
    "$INCLPROF" record -o slow$i -- ./slowfn --slow gamma_ >/dev/null 2>&1
    three_runs $((i - 2)) $((i - 1)) $i
  done
  check_eq "3 + 3 runs: no other function is ever marked ($sets sets)" "" "$others"
  check_eq "3 + 3 runs are enough to mark gamma_ (three times the work) in one of $sets sets" 1 "$found"
  check "the noise test says what it can find with 3 + 3 runs" \
    grep -Eq "^noise test: the smaller p of Welch's t-test on the logarithms of the per-run times \(with 3 \+ 3 runs it marks a change of [0-9.]+ standard errors or more\) and the rank test \(every run of one side above the other's gives p = 0.100\)$" three.txt
  # shellcheck disable=SC2086
  "$INCLPROF" diff --csv --value application --threshold 5 $B -- slow1 slow2 slow3 slow4 slow5 >slow.csv
  check_eq "CSV: beyond_noise is 1 for gamma_ alone" "gamma_" \
    "$(python3 -c 'import csv,sys; print(" ".join(r["function"] for r in csv.DictReader(open(sys.argv[1])) if r["beyond_noise"] == "1"))' slow.csv)"
  check_eq "CSV: gamma_ ran 2000 times on each side" "2000 2000" \
    "$(python3 -c 'import csv,sys; r=[r for r in csv.DictReader(open(sys.argv[1])) if r["function"] == "gamma_"][0]; print(r["base_calls"], r["new_calls"])' slow.csv)"
  check "CSV: gamma_'s application exclusive time grew more than 1.5x" python3 -c \
    'import csv,sys; r=[r for r in csv.DictReader(open(sys.argv[1])) if r["function"] == "gamma_"][0]; sys.exit(not int(r["new_application_exclusive_ns"]) > 1.5 * int(r["base_application_exclusive_ns"]))' slow.csv

  if viewers_ready; then
    for f in p.base.pb.gz p.new.pb.gz p.diff.pb.gz; do check "go tool pprof reads $f" pprof_raw $f; done
    top=$(pprof_top p.new.pb.gz -diff_base p.base.pb.gz | head -n1)
    check_eq "go tool pprof -diff_base: gamma_ tops the difference" "gamma_" "$(echo "$top" | cut -f1)"
    check "its flat difference is positive" test "$(echo "$top" | cut -f2)" -gt 0
    check_eq "the difference profile has the same top row" "$top" "$(pprof_top p.diff.pb.gz | head -n1)"
  else
    fail "the viewers (go tool pprof) could not be installed: run scripts/deps.sh test"
  fi
fi

"$INCLPROF" diff base1 renamed >one.txt 2>&1
check_eq "one run a side: no noise test, exit 0" 0 $?
check "it says that nothing can be marked" grep -q 'fewer than 3 runs a side' one.txt
check "gamma_ is listed as BASE only" grep -q 'gamma_  \[only in BASE\]$' one.txt
check "gamma2 is listed as NEW only" grep -q 'gamma2  \[only in NEW\]$' one.txt
check_eq "CSV status of the one-side rows" "gamma2,new_only gamma_,base_only" \
  "$("$INCLPROF" diff --csv base1 renamed | awk -F, 'NR > 1 && $NF != "both" {print $1 "," $NF}' | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "CSV with one run a side: p_value empty on every row" "" \
  "$("$INCLPROF" diff --csv base1 renamed | python3 -c 'import csv, sys
print(*sorted({r["p_value"] for r in csv.DictReader(sys.stdin)}))')"
check "--by thread matches the main thread (named slowfn) across runs" sh -c "'$INCLPROF' diff --by thread base1 base2 | grep -q ' slowfn\$'"

# bad DESC EXIT PATTERN ARGS...: diff fails with EXIT and one line matching PATTERN
bad() {
  d=$1 want=$2 pat=$3; shift 3
  "$INCLPROF" diff "$@" >/dev/null 2>err
  check_eq "$d: exit $want" "$want" $?
  check_eq "$d: one line on stderr" 1 "$(wc -l <err)"
  check "$d: names the cause" grep -Eq "$pat" err
}
mkdir empty
bad "an empty directory" 1 'empty' base1 empty
bad "a missing run" 1 'nosuch' base1 nosuch
gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$INCLPROF_SRC/tests/programs/convert/many_calls.c" -o another
"$INCLPROF" record -o another1 -- ./another 1000 >/dev/null 2>&1
bad "two programs that are not builds of one" 1 \
  "base1 profiles 'slowfn' and another1 profiles 'another', which share [0-9]+ of BASE's [0-9]+ rows: not two builds of one program; give --force" \
  base1 another1
"$INCLPROF" diff --force base1 another1 >forced.txt 2>&1
check_eq "--force compares them anyway: exit 0" 0 $?
"$INCLPROF" diff base1 notslow1 >renamed.txt 2>&1
check_eq "two builds of one program under different file names are compared: exit 0" 0 $?
check "and the table says the names differ" grep -q "^(two programs' names: their rows are matched by name; [0-9]* of BASE's [0-9]* rows are in both)$" renamed.txt
bad "one operand" 2 'give BASE and NEW' base1
bad "an empty NEW side" 2 'the NEW side has no run' base1 --
bad "a bad --threshold" 2 "bad --threshold 'x'" --threshold x base1 base2
bad "a bad --value" 2 "bad --value 'cpu'" --value cpu base1 base2
# the --pprof files are written whole or not at all: with no room for a byte
# (a file size limit of 0), diff names the file it could not write, exits 1
# and leaves no file behind, not even an empty one
mkdir full
(cd full && sh -c "trap '' XFSZ; ulimit -f 0; '$INCLPROF' diff ../base1 ../base2 --pprof p >/dev/null; echo \"exit \$?\"" 2>&1 | cat >../full.out)
check_eq "no room for --pprof: one line naming the file, exit 1" \
  "inclprof diff: p.base.pb.gz: write failed: File too large|exit 1" "$(tr '\n' '|' <full.out | sed 's/|$//')"
check_eq "no room for --pprof: no file left behind" "" "$(ls -A full)"
# a run with 64 bytes of garbage after its end: read up to the damage, which
# stderr names, and exit 3
mkdir cut
f=$(ls slow1/*.ipb | head -n1)
{ cat "$f"; head -c 64 /dev/zero | tr '\0' '\377'; } >"cut/$(basename "$f")"
"$INCLPROF" diff base1 cut >cut.txt 2>err
check_eq "a damaged run: exit 3" 3 $?
check "a damaged run: stderr names the damage" grep -q "warning: .*cut/.*ipb" err
check "a damaged run: the table is printed" grep -q 'gamma_' cut.txt
done_testing
