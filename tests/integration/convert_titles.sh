#!/bin/sh
# convert_titles.sh - processes named as they named themselves (titles.c,
# as PostgreSQL's are): the parent's title written over its argv, a worker's
# own title, a worker that renamed its thread with prctl(PR_SET_NAME), and
# one that kept its parent's title, each with the executable beside it and
# the fork it came from; the titles equal what the program read from its
# own /proc/self/cmdline and /proc/self/comm.  The tree's headings name the
# process; the Chrome export names the processes the same way; at 80
# columns the rows fit, still told apart.
. "$INCLPROF_SRC/tests/lib.sh"
check "titles builds" cc_plugin titles "$INCLPROF_SRC/tests/programs/convert/titles.c" -O1
"$INCLPROF" record -o data ./titles pad-pad-pad-pad-pad-pad-pad-pad-pad-pad >run.txt 2>&1
exe="$T_DIR/titles"
pid_of() { awk -v k="$1" -v t="$2" '$1 == k && substr($0, length($1 $2) + 3) == t { print $2 }' run.txt; }
ckpt=$(pid_of title "titles: checkpointer")
wal=$(pid_of comm walwriter)
third=$(awk '$1 == "comm" && $3 == "titles" { c[$2] = 1 } $1 == "title" && $4 == "postmaster" { t[$2] = 1 }
  END { for (p in c) if (t[p]) print p }' run.txt)
parent=$(awk '$1 == "comm" { kid[$2] = 1 } $1 == "title" { t[$2] = 1 } END { for (p in t) if (!kid[p]) print p }' run.txt)
check_eq "four processes, each named by the program" 4 "$(printf '%s\n' "$parent" "$ckpt" "$wal" "$third" | grep -c '^[0-9][0-9]*$')"
"$INCLPROF" report --by process data >procs.txt 2>/dev/null
check_eq "--by process: titles with the executable beside and the fork" \
  "$(printf '%s\n' "$parent titles: postmaster ($exe)" "$ckpt titles: checkpointer ($exe, fork of $parent)" \
    "$wal walwriter ($exe, fork of $parent)" "$third titles: postmaster ($exe, fork of $parent)" | sort)" \
  "$(sed -n 's/^ *[0-9].*%  *\([0-9][0-9]* [tw].*\)$/\1/p' procs.txt | sort)"
"$INCLPROF" report --tree data >tree.txt 2>/dev/null
check_eq "the tree's headings" \
  "$(printf '%s\n' "thread $parent/$parent (titles) of \"titles: postmaster\":" \
    "thread $ckpt/$ckpt (titles) of \"titles: checkpointer\":" "thread $wal/$wal (walwriter):" \
    "thread $third/$third (titles) of \"titles: postmaster\":" | sort)" \
  "$(grep '^thread ' tree.txt | sort)"
"$INCLPROF" export --format chrome -o trace.json data >/dev/null 2>&1
check_eq "chrome: the same names, by base name" \
  "$(printf '%s\n' "$parent titles: postmaster (titles)" "$ckpt titles: checkpointer (titles, fork of $parent)" \
    "$wal walwriter (titles, fork of $parent)" "$third titles: postmaster (titles, fork of $parent)" | sort)" \
  "$(python3 -c 'import json,sys
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e.get("name") == "process_name": print(e["pid"], e["args"]["name"])' trace.json | sort)"
COLUMNS=80 "$INCLPROF" report --by process data >narrow.txt 2>/dev/null
check_eq "COLUMNS=80: four rows within 80 columns, told apart" "4 4" \
  "$(sed -n '/^ *Calls/,$p' narrow.txt | sed 1d | awk 'length($0) <= 80' | wc -l) $(sed -n '/^ *Calls/,$p' narrow.txt | sed 1d | awk '{ $1 = $2 = $3 = $4 = $5 = ""; print }' | sort -u | wc -l)"
done_testing
