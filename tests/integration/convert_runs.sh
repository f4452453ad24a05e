#!/bin/sh
# convert_runs.sh - every process says which run it belongs to (Header.run:
# record's, else made by the first process and carried into the processes it
# starts), so that traces of separate runs read together are named as such
# instead of adding up without a word, while the processes of one run (a
# script running the program twice, a program starting copies of itself) are
# one run.
. "$INCLPROF_SRC/tests/lib.sh"
check "many_calls builds (runtime linked)" cc_plugin many "$INCLPROF_SRC/tests/programs/convert/many_calls.c" -O2
mkdir two
INCLPROF_OUTPUT=$PWD/two ./many 10 >/dev/null
INCLPROF_OUTPUT=$PWD/two ./many 10 >/dev/null
"$INCLPROF" report two >report.txt 2>err.txt
check "two runs into one directory: one warning names them" grep -q \
  "^inclprof: warning: the traces read hold 2 separate runs (as two/[0-9]*\.ipb and others show): their values are added together; record each run into a directory of its own" err.txt
"$INCLPROF" report --jobs 2 two >/dev/null 2>err2.txt
check "the same with --jobs 2" grep -q "2 separate runs" err2.txt
"$INCLPROF" record -o script -- sh -c './many 5 && ./many 6' >/dev/null 2>&1
"$INCLPROF" report script >script.txt 2>script.err
check "one record of a script running the program twice: one run" sh -c "! grep -q 'separate runs' script.err"
check_eq "whose two mains are both counted" 2 "$(awk '$NF == "main" { print $1 }' script.txt)"
check "spawner builds (runtime not linked)" gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$INCLPROF_SRC/tests/programs/runtime/spawner.c" -o spawner
"$INCLPROF" record -o kids -- ./spawner >/dev/null 2>&1
"$INCLPROF" report kids >/dev/null 2>kids.err
check "a program and the copies it starts with their own environment: one run" sh -c "! grep -q 'separate runs' kids.err"
done_testing
