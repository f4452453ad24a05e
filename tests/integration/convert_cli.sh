#!/bin/sh
# convert_cli.sh - the command-line convention shared by record, info, report
# and export: a usage error is exactly one stderr line "inclprof CMD: WHAT;
# try 'inclprof CMD --help'" with exit status 2 and nothing on stdout;
# --help prints the usage on stdout and exits 0; record's options end at the
# program, whose own options are left to it.
. "$INCLPROF_SRC/tests/lib.sh"

# usage_error CMD EXPECTED_WHAT ARGS...: `inclprof CMD ARGS` fails with status 2
# and the one line "inclprof CMD: EXPECTED_WHAT; try 'inclprof CMD --help'".
usage_error() {
  cmd=$1; what=$2; shift 2
  "$INCLPROF" "$cmd" "$@" >out.txt 2>err.txt; rc=$?
  check_eq "$cmd $*: status 2" 2 "$rc"
  check_eq "$cmd $*: the one error line" "inclprof $cmd: $what; try 'inclprof $cmd --help'" "$(cat err.txt)"
  check_eq "$cmd $*: nothing on stdout" 0 "$(wc -c <out.txt)"
}

usage_error record "no program to run"
usage_error record "no program to run" -o dir --
usage_error record "unknown option '--bogus'" --bogus ./prog
usage_error record "unknown option '-x'" -x ./prog
usage_error record "option '-o' needs a value" -o
usage_error record "bad --transitions 'fast' (auto, pmu, kevents or none)" --transitions fast ls
usage_error record "bad --sample-hz '0' (a rate in 1..100000)" --sample-hz 0 ls
usage_error record "bad --sample-hz '100001' (a rate in 1..100000)" --sample-hz 100001 ls

usage_error info "unknown option '--by'" --by module
usage_error report "bad --by level 'file'" --by file
usage_error report "bad --sort column 'speed'" --sort speed
usage_error report "bad --top count '-3'" --top -3
usage_error report "bad --thread 'x1' (a thread id)" --thread x1
usage_error report "bad --process 'p1' (a process id)" --process p1
usage_error report "option '--callers' needs a value" --callers
usage_error report "--tree and --callers are different views; give one of them" --tree --callers main
usage_error report "--callers and --callees are different views; give one of them" --callers f --callees f
usage_error report "--wait and --tree are different views; give one of them" --wait --tree
usage_error suggest "-o - would mix the filter into the table; give a file" -o -

# Options after the program are the program's: sh gets "-o x" and exits 7.
"$INCLPROF" record -o mine sh -c 'exit 7' -o x >out.txt 2>err.txt
check_eq "record stops at the program: the program's status" 7 "$?"
check "record stops at the program: the directory is record's own -o" grep -q "to mine/" err.txt

for cmd in record info report export; do
  "$INCLPROF" "$cmd" --help >out.txt 2>err.txt
  check_eq "$cmd --help: status 0" 0 "$?"
  check_eq "$cmd --help: the usage line first" "usage: inclprof $cmd" "$(head -1 out.txt | cut -d' ' -f1-3)"
  check "$cmd --help: -h, --help listed" grep -q "^  -h, --help  *this text$" out.txt
done
done_testing
