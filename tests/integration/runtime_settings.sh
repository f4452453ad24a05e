#!/bin/sh
# runtime_settings.sh - the runtime's settings from the environment: a value
# it does not know gets one line on stderr naming it and what is used
# instead, and the program's output and exit status stay its own;
# INCLPROF_CLOCK=fast is recorded in the header and said by info and report;
# rdtscp and exits count the calls the default counts.
. "$INCLPROF_SRC/tests/lib.sh"
check "compile with the plugin" cc_plugin calls "$INCLPROF_SRC/tests/programs/runtime/thousand_calls.c" -O2
./calls >plain.out 2>/dev/null
plain_status=$?
setting() { # setting VAR=VALUE EXPECTED-STDERR-LINE
  rm -rf out
  env "$1" "$INCLPROF" record -o out ./calls >run.out 2>run.err
  status=$?
  check_eq "$1: program output unchanged" "$(cat plain.out)" "$(cat run.out)"
  check_eq "$1: exit status unchanged" "$plain_status" "$status"
  check_eq "$1: one line naming the value and what is used" "$2" "$(grep '^inclprof: INCLPROF_' run.err)"
}
setting INCLPROF_CLOCK=slow "inclprof: INCLPROF_CLOCK='slow' is not fenced, fast, rdtscp or exits; using fenced"
setting INCLPROF_WRITER=later "inclprof: INCLPROF_WRITER='later' is not auto, thread or inline; using auto"
setting INCLPROF_TRANSITIONS=perf \
  "inclprof: INCLPROF_TRANSITIONS='perf' is not auto, pmu, kevents or none; using auto"
setting INCLPROF_TABLES=private "inclprof: INCLPROF_TABLES='private' is not shared or inline; using shared"
check_eq "INCLPROF_TABLES=private: the tables shared all the same" 1 "$(ls out/*.ipt | wc -l)"

rm -rf fenced fast
"$INCLPROF" record -o fenced ./calls >/dev/null 2>&1
INCLPROF_CLOCK=fast "$INCLPROF" record -o fast ./calls >/dev/null 2>&1
check "fenced (the default): info names no unfenced clock" sh -c "! '$INCLPROF' info fenced | grep -q 'without a fence'"
check "fast: info says the clock is read without a fence" sh -c "'$INCLPROF' info fast | grep -q '; read without a fence (INCLPROF_CLOCK=fast)\$'"
check_eq "fast: the report header says so" \
  "clock:        1 of 1 processes read the clock without a fence (INCLPROF_CLOCK=fast): calls of under ~200 ns read low" \
  "$("$INCLPROF" report fast 2>/dev/null | grep '^clock:')"
check_eq "fenced: the report header has no clock line" "" "$("$INCLPROF" report fenced 2>/dev/null | grep '^clock:')"
check_eq "fast: the same calls are counted" "$("$INCLPROF" export -f csv -o - fenced 2>/dev/null | awk -F, '$1 == "f" {print $5}')" \
  "$("$INCLPROF" export -f csv -o - fast 2>/dev/null | awk -F, '$1 == "f" {print $5}')"
for c in rdtscp exits; do
  rm -rf "$c"
  INCLPROF_CLOCK=$c "$INCLPROF" record -o "$c" ./calls >run.out 2>run.err
  check_eq "$c: program output unchanged" "$(cat plain.out)" "$(cat run.out)"
  check_eq "$c: no message" "" "$(grep '^inclprof: INCLPROF_' run.err)"
  check_eq "$c: the same calls are counted" \
    "$("$INCLPROF" export -f csv -o - fenced 2>/dev/null | awk -F, '$1 == "f" {print $5}')" \
    "$("$INCLPROF" export -f csv -o - "$c" 2>/dev/null | awk -F, '$1 == "f" {print $5}')"
done
done_testing
