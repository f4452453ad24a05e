#!/bin/sh
# sampling_lines.sh - samples by source line and instruction, and calls by
# call line: work() (tests/programs/lines/lines.c) runs the same step 3
# units on one line, 1 unit on another and 1 unit in the inlined mix(), and
# calls note() 3 times a round from one line and once from another.
# report --by line gives those lines 60/20/20% of work()'s samples (within
# 6 points: measured within 2.7 over 5 runs of ~900 samples), the inlined line
# named with mix; report --by address names and disassembles the
# instructions; report --callees work tells the two call lines apart with
# exact call counts.
# timing: the shares are samples of one run, with margins; a heavily loaded
# machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
P="$INCLPROF_SRC/tests/programs/lines"
src="$P/lines.c"
line_of() { grep -n "$1" "$src" | cut -d: -f1; }
heavy=$(line_of HEAVY_LINE) light=$(line_of LIGHT_LINE) mixl=$(line_of MIX_LINE)
note3=$(line_of NOTE3_LINE) note1=$(line_of NOTE1_LINE)
rounds=20000

check "compile the callee without the plugin" gcc -O2 -g -c "$P/lines_note.c" -o note.o
check "compile with the plugin" gcc -O2 -g -fplugin="$INCLPROF_PLUGIN" "$src" note.o -o lines
"$INCLPROF" record -o out --sample-hz 1000 -- ./lines $rounds >/dev/null 2>run.txt
check_eq "record: exit status" 0 "$?"

"$INCLPROF" report out --by line --function work >lines.txt 2>&1
check_eq "report --by line --function work: exit status" 0 "$?"
# The "% of fn" column of the row whose Line column is FILE:LINE.
share() { awk -v want="$1" 'NF >= 5 && ($NF == want || ($(NF-2) == want && $NF == "mix)")) { sub("%", "", $2); print $2 }' lines.txt; }
check_near "line $heavy (3 units of 5): share of work's samples" 60 "$(share "$src:$heavy")" 6
check_near "line $light (1 unit of 5): share of work's samples" 20 "$(share "$src:$light")" 6
check_near "line $mixl, inlined mix (1 unit of 5): share of work's samples" 20 "$(share "$src:$mixl")" 6
check "the inlined line is named with its function" grep -q "$src:$mixl (inlined mix)$" lines.txt
samples=$(sed -n 's/.*, \([0-9]*\) samples with a known address$/\1/p' lines.txt)
check "hundreds of samples with an address ($samples)" test "${samples:-0}" -ge 300

"$INCLPROF" report out --by address --function work --top 1 >addr.txt 2>&1
check_eq "report --by address: exit status" 0 "$?"
check "report --by address: the hottest instruction at lines+0xOFFSET, disassembled, on a loop line" \
  sh -c "tail -n 1 addr.txt | grep -Eq ' work +lines\+0x[0-9a-f]+ +[a-z]+ .*$src:($heavy|$light|$mixl)'"

"$INCLPROF" report out --callees work >callees.txt 2>&1
check_eq "report --callees work: exit status" 0 "$?"
# a call line is named by its file's base name
calls_at() { awk -v want="lines.c:$1" '$NF == want && $(NF-1) == "note" { print $1 }' callees.txt; }
check_eq "note() calls from line $note3" $((3 * rounds)) "$(calls_at "$note3")"
check_eq "note() calls from line $note1" "$rounds" "$(calls_at "$note1")"

"$INCLPROF" record -o plain -- ./lines 10 >/dev/null 2>&1
"$INCLPROF" report plain --by line >plain.txt 2>&1
check_eq "report --by line without samples: exit status" 1 "$?"
check "report --by line without samples: says how to get them" grep -q "record with --sample-hz N" plain.txt
"$INCLPROF" report out --function work >usage.txt 2>&1
check_eq "--function without --by line: usage error" 2 "$?"
done_testing
