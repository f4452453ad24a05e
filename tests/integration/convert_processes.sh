#!/bin/sh
# convert_processes.sh - processes told apart: a program that overwrote its
# argv with a padded title forks, and the child execs an instrumented
# program; `report --by process` shows three different rows (the parent
# named by its title with its executable beside it, the fork child, which
# kept the title, marked "fork of PID", the image after exec, which has no
# title, marked "after exec from EXECUTABLE") and the title has no padding;
# the Chrome and Perfetto exports name the processes the same way, by base
# name.
. "$INCLPROF_SRC/tests/lib.sh"
gcc -O1 -fplugin="$INCLPROF_PLUGIN" "$INCLPROF_SRC/tests/programs/convert/forker.c" -o forker ||
  fail "program compiles"
"$INCLPROF" record -o data ./forker pad xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx >/dev/null 2>&1
check_eq "three trace files: parent, fork child, image after exec" 3 "$(ls data/*.ipb | wc -l)"
parent=$(ls data/*.ipb | sed -n 's|^data/\([0-9]*\)\.ipb$|\1|p' | sort -n | head -n1)
child=$(ls data/*.ipb | sed -n 's|^data/\([0-9]*\)\.1\.ipb$|\1|p')
exe="$T_DIR/forker"
"$INCLPROF" report --by process data >report.txt 2>&1
# the process column: what follows the last percentage of a row
procs() { sed -n 's/^ *[0-9].*%  *\([0-9][0-9]* [/f].*\)$/\1/p' report.txt | sort; }
check_eq "rows: parent, fork child, image after exec" \
  "$(printf '%s\n' "$parent forker: main ($exe)" "$child $exe (after exec from $exe)" "$child forker: main ($exe, fork of $parent)" | sort)" \
  "$(procs)"
check_eq "no two rows alike" 3 "$(procs | sort -u | wc -l)"
check_eq "the fork child's command: the title without its padding" "forker: main" \
  "$("$INCLPROF" info "data/$child.ipb" | sed -n 's/^command: *//p')"
check_eq "the image after exec: its own command line" "forker child" \
  "$("$INCLPROF" info "data/$child.1.ipb" | sed -n 's/^command: *//p')"
"$INCLPROF" export --format chrome -o trace.json data >/dev/null 2>&1
check_eq "chrome: process names with the same fork and exec marks" \
  "$(printf '%s\n' "$parent forker: main (forker)" "$child forker (after exec from forker)" "$child forker: main (forker, fork of $parent)" | sort)" \
  "$(python3 -c 'import json,sys
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e.get("name") == "process_name": print(e["pid"], e["args"]["name"])' trace.json | sort)"
"$INCLPROF" export --format perfetto -o trace.pftrace data >/dev/null 2>&1
check_eq "perfetto: the same process names" \
  "$(printf '%s\n' "forker: main (forker)" "forker (after exec from forker)" "forker: main (forker, fork of $parent)" | sort)" \
  "$(protoc --decode=perfetto.protos.Trace -I"$INCLPROF_SRC/proto" perfetto_trace.proto <trace.pftrace |
     sed -n 's/^ *process_name: "\(.*\)"$/\1/p' | sort)"
done_testing
