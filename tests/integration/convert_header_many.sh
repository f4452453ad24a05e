#!/bin/sh
# convert_header_many.sh - the report's header for a session of 13 live
# processes (many_live.c: twelve workers waiting for a file): one line says
# that 13 processes are still running, with the first pids and how many
# more, instead of a line for each; --verbose gives the line for each; at
# 60 columns the header's lines are broken at blanks, none wider; once they
# have ended, no such line.
. "$INCLPROF_SRC/tests/lib.sh"
check "many_live builds" cc_plugin many_live "$INCLPROF_SRC/tests/programs/convert/many_live.c" -O1
"$INCLPROF" record -o data ./many_live >run.txt 2>&1 &
rec=$!
i=0
while [ "$(ls data/*.ipb 2>/dev/null | wc -l)" -lt 13 ] && [ "$i" -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
check_eq "13 traces, being written" 13 "$(ls data/*.ipb | wc -l)"
"$INCLPROF" report data >live.txt 2>/dev/null
check_eq "one header line for the 13 running processes" 1 \
  "$(grep -c '^warning: *13 processes (pids [0-9]*, [0-9]*, [0-9]* and 10 more) are still running: each trace is read up to its last complete batch' live.txt)"
check_eq "... and none for each" 0 "$(grep -c 'no trailer yet: pid' live.txt)"
"$INCLPROF" report --verbose data >verbose.txt 2>/dev/null
check_eq "--verbose: a line for each" 13 "$(grep -c '^warning: *data/[0-9]*\.ipb: no trailer yet: pid [0-9]* is still running' verbose.txt)"
# At a terminal's width the header's lines are broken at blanks, each
# further part under the line's value: nothing wider, no word lost.
COLUMNS=60 "$INCLPROF" report data >narrow.txt 2>/dev/null
header() { sed '/^$/q' "$1" | tr -s ' \n' '  '; }
check_eq "COLUMNS=60: every header line within 60 columns" 0 "$(sed '/^$/q' narrow.txt | awk 'length($0) > 60' | wc -l)"
check_eq "COLUMNS=60: the header's words as without a width, in order" "$(header live.txt)" "$(header narrow.txt)"
check_eq "COLUMNS=60: each broken line's further parts indented under its value" 0 \
  "$(sed '/^$/q' narrow.txt | awk 'NR > 1 && /^ / && !/^              [^ ]/' | wc -l)"
touch stop
wait "$rec"
"$INCLPROF" report data >done.txt 2>/dev/null
check_eq "ended: no line says they run" 0 "$(grep -c 'still running' done.txt)"
check_eq "the program named its twelve workers" 12 "$(grep -c '^worker [0-9]*$' run.txt)"
done_testing
