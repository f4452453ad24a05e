# bash.sh - GNU bash in `make field` (sourced by field.sh): Debian's bash
# source (the upstream tree), built plain and with the plugin; the workload
# tests/field/work.bash, then bash's own test suite (tests/run-*, each
# test's output compared by the test with its .right file) plain and, as a
# whole, recorded: every bash of it traced, some 22 000 processes made by
# fork without exec, with signals, traps, job control, descriptors moved,
# ulimit and exec.

# The tests whose output depends on time: run-read reads with timeouts of
# 0.1 ms and 0.5 s (read2.sub, read7.sub), partly met plain and partly
# recorded, where each of read2.sub's 4 000 fork children takes about 5 ms
# more (the runtime's start and end in a child): recorded, their result is
# shown, not compared.
BASH_TIMED_TESTS="run-read"

# build_bash FLAVOUR DIR: bash and the helpers its tests run (recho, zecho,
# printenv, xcase, built alike) in DIR/tests.
build_bash() {
  unpack bash "$2" &&
    (cd "$2" && ./configure -q CC=gcc CFLAGS="$(flags "$1")" LDFLAGS="$(ldflags "$1")" &&
      make -j2 -s bash recho zecho printenv xcase && cp recho zecho printenv xcase tests/) >"$2/build.log" 2>&1
  BIN=$2/bash
}

# run_bash CMD...: the workload; each process appends its pid to pids.txt
# (extra_bash).
run_bash() { rm -f pids.txt && "$@" "$INCLPROF_SRC/tests/field/work.bash" "$PWD/pids.txt"; }

# bash_locales DIR: the locales the tests ask for, in DIR for LOCPATH (a
# test whose locale cannot be made fails alike plain and recorded).
bash_locales() {
  [ -d "$1/en_US.UTF-8" ] && return 0
  mkdir -p "$1"
  for bash_l in en_US:UTF-8:en_US.UTF-8 de_DE:UTF-8:de_DE.UTF-8 ru_RU:CP1251:ru_RU.CP1251 zh_HK:BIG5-HKSCS:zh_HK.big5hkscs; do
    IFS=: read -r bash_src bash_map bash_name <<EOF2
$bash_l
EOF2
    localedef -i "$bash_src" -f "$bash_map" "$1/$bash_name" >/dev/null 2>&1
  done
  return 0
}

# bash_suite BUILD OUT: every tests/run-* of BUILD's bash as `make tests`
# runs it, one after another; each one's output (its differences from the
# .right files) in OUT/TEST.out with the build's path as BUILD and the
# process group of run-execscript's "cannot set terminal process group" as
# PGRP, its status in OUT/TEST.rc.
bash_suite() {
  bash_b=$1 bash_o=$2
  rm -rf "$bash_o" && mkdir -p "$bash_o/tmp"
  (
    cd "$bash_b/tests" || exit 1
    export TMPDIR="$bash_o/tmp" THIS_SH="$bash_b/bash" BUILD_DIR="$bash_b" PATH="$bash_b/tests:$PATH" LOCPATH="$W/bash/locale"
    for x in run-*; do
      case $x in run-all | run-minimal | run-gprof) continue ;; esac
      BASH_TSTOUT=$TMPDIR/tstout-$x timeout -k 5 300 sh "$x" </dev/null >"$bash_o/$x.raw" 2>&1
      echo $? >"$bash_o/$x.rc"
      sed -e "s|$bash_b|BUILD|g" -e 's/terminal process group ([0-9]*)/terminal process group (PGRP)/' "$bash_o/$x.raw" >"$bash_o/$x.out"
      rm -f "$bash_o/$x.raw" "$TMPDIR/tstout-$x"
    done
  )
}

# bash_results OUT: one line per test: its name, status, and "passes" (no
# output but warnings) or its output's checksum.
bash_results() {
  for bash_f in "$1"/run-*.out; do
    bash_t=$(basename "$bash_f" .out)
    if grep -qv -e '^warning' -e '^$' "$bash_f"; then bash_r="differs from .right: $(cksum <"$bash_f" | cut -d' ' -f1)"; else bash_r=passes; fi
    echo "$bash_t: exit $(cat "$1/$bash_t.rc"), $bash_r"
  done
}

# bash_unended RECORD_OUTPUT: each trace record names as without an end,
# with its command, but those of jobs.tests, jobs1.sub and jobs2.sub, which
# kill their background job with SIGKILL (a bash until it runs sleep).
bash_unended() {
  for bash_f in $(sed -n 's/^inclprof record: \(.*\.ipb\): the trace has no end.*/\1/p' "$1"); do
    bash_cmd=$("$INCLPROF" info "$bash_f" 2>/dev/null | sed -n 's/^command: *//p')
    case $bash_cmd in
    *" ./jobs.tests" | *" ./jobs1.sub" | *" ./jobs2.sub") ;;
    *) echo "$bash_f: $bash_cmd" ;;
    esac
  done
}

# extra_bash: the workload's calls and processes; the test suite recorded
# gives the plain results, test by test.
extra_bash() {
  cd "$dir/run/rec" || return
  check_eq "bash: execute_function is called once per call of the shell function fib (fib 20: 21891 calls)" 21891 \
    "$(calls_of prof.csv execute_function)"
  "$INCLPROF" info data 2>/dev/null | awk '/^process:/ { pid = $3; sub(/,$/, "", pid) }
    /^trailer:/ && /clean shutdown/ { print pid }' | sort >clean-pids.txt
  check_eq "bash: each of the workload's 41 processes (the shell and its 40 subshells, by their own \$BASHPID) has a trace that ends cleanly" \
    "$(sort pids.txt)" "$(sort pids.txt | comm -12 - clean-pids.txt)"
  bash_locales "$W/bash/locale"
  t0=$(now) && bash_suite "$dir/plain" "$dir/run/suite-plain" && bash_plain_s=$(since "$t0")
  cd "$dir/run" && rm -rf suite-data && t0=$(now) &&
    "$INCLPROF" record -o "$dir/run/suite-data" -- sh -c ". '$INCLPROF_SRC/tests/field/bash.sh' && W='$W' bash_suite '$dir/plugin' '$dir/run/suite-rec'" >suite-record.txt 2>&1
  bash_rec_s=$(since "$t0")
  bash_results suite-plain >results-plain.txt
  bash_results suite-rec >results-rec.txt
  bash_n=$(wc -l <results-plain.txt)
  bash_compared=$(grep -v -F -e "$(echo "$BASH_TIMED_TESTS" | tr ' ' '\n' | sed 's/$/:/')" results-plain.txt)
  check_eq "bash: its test suite recorded ($(grep -c 'passes$' results-plain.txt) of $bash_n tests pass plain; $bash_plain_s s plain, $bash_rec_s s recorded): every test but $BASH_TIMED_TESTS has the plain run's status and output" \
    "$bash_compared" "$(grep -v -F -e "$(echo "$BASH_TIMED_TESTS" | tr ' ' '\n' | sed 's/$/:/')" results-rec.txt)"
  for bash_t in $BASH_TIMED_TESTS; do
    cmp -s "suite-plain/$bash_t.out" "suite-rec/$bash_t.out" ||
      echo "# bash: $bash_t (its timeouts met or not by time): $(diff "suite-plain/$bash_t.out" "suite-rec/$bash_t.out" | grep -c '^[<>]') lines differ recorded"
  done
  bash_traces=$(ls suite-data/*.ipb | wc -l)
  check_eq "bash: record wrote a trace for every bash process of the suite ($bash_traces), each with its end but a job killed by kill -9 (jobs.tests, jobs1.sub, jobs2.sub: when it comes before the job's exec of sleep)" "" \
    "$(bash_unended suite-record.txt; grep -e 'lost' suite-record.txt | head -3)"
  suite_row "bash: test suite" "$bash_plain_s" "$bash_rec_s" suite-data/*.ipb
  rm -rf suite-data
}
