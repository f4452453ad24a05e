#!/bin/sh
# export_lines.sh - the exports carry source lines: work()
# (tests/programs/lines/lines.c) runs the same step 3 units on one line and
# 1 unit on another (and 1 in the inlined mix()), and calls note() 3 times a
# round from one line and once from another.
#   pprof: `go tool pprof -list work` puts work's samples on the two loop
#   lines in about 3:1 (each line's share of work's samples within 6 points
#   of 60% and 20%, as sampling_lines.sh), the inlined line on line 23 as its
#   call; with -sample_index=calls the call lines hold note's exact calls;
#   `-lines -top` names the lines and the inlined mix;
#   callgrind: `callgrind_annotate --auto=yes` annotates the loop lines with
#   their samples in about 3:1 and shows each call line's calls of note;
#   html: the tooltip of work names its hottest line, with its samples.
# timing: the shares are samples of one run, with margins; a heavily loaded
# machine can still push one past them.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"
need chromium node
P="$INCLPROF_SRC/tests/programs/lines"
src="$P/lines.c"
line_of() { grep -n "$1" "$src" | cut -d: -f1; }
heavy=$(line_of HEAVY_LINE) light=$(line_of LIGHT_LINE) mixl=$(line_of MIX_LINE)
note3=$(line_of NOTE3_LINE) note1=$(line_of NOTE1_LINE) mixcall=$(line_of 'x = mix(x)')
rounds=40000 # about 1 200 samples in work: a share's noise about 1.4 points

check "viewers installed" viewers_ready
PICS=$(sh "$INCLPROF_SRC/tests/viewers/pictures/setup.sh") || { fail "tests/viewers/pictures/setup.sh failed"; exit 1; }
check "compile the callee without the plugin" gcc -O2 -g -c "$P/lines_note.c" -o note.o
check "compile with the plugin" gcc -O2 -g -fplugin="$INCLPROF_PLUGIN" "$src" note.o -o lines
check "record with --sample-hz 1000" "$INCLPROF" record --sample-hz 1000 -- ./lines $rounds
for f in pprof callgrind html csv; do check "export --format $f" "$INCLPROF" export -f "$f"; done
work=$(csv_rows inclprof.csv function exclusive_samples | awk -F'\t' '$1 == "work" { print $2 }')
check "hundreds of samples in work ($work)" test "${work:-0}" -ge 300

# --- pprof -----------------------------------------------------------------
# "FLAT CUM LINE" of each source line of work's listing.
pprof_go -list '^work$' -sample_index=samples inclprof.pb.gz 2>/dev/null |
  awk '/^ +[0-9.]+ +[0-9.]+ +[0-9]+:/ { l = $3; sub(":", "", l); print $1, $2, l }' >list.txt
flat_at() { awk -v l="$1" '$3 == l { print ($1 == "." ? 0 : $1) }' list.txt; }
cum_at() { awk -v l="$1" '$3 == l { print ($2 == "." ? 0 : $2) }' list.txt; }
pct() { awk -v a="${1:-0}" -v b="$2" 'BEGIN { printf "%.1f", 100 * a / b }'; }
check_near "pprof -list work: line $heavy (3 units of 5), share of work's samples" 60 \
  "$(pct "$(flat_at "$heavy")" "$work")" 6
check_near "pprof -list work: line $light (1 unit of 5), share of work's samples" 20 \
  "$(pct "$(flat_at "$light")" "$work")" 6
check_near "pprof -list work: line $mixcall, the inlined mix's call (1 unit of 5), cum share" 20 \
  "$(pct "$(cum_at "$mixcall")" "$work")" 6
pprof_go -list '^work$' -sample_index=calls inclprof.pb.gz 2>/dev/null |
  awk '/^ +[0-9.]+ +[0-9.]+ +[0-9]+:/ { l = $3; sub(":", "", l); print $1, $2, l }' >calls.txt
check_eq "pprof -list work -sample_index=calls: note's calls on line $note3" $((3 * rounds)) \
  "$(awk -v l="$note3" '$3 == l { print $2 }' calls.txt)"
check_eq "pprof -list work -sample_index=calls: note's calls on line $note1" "$rounds" \
  "$(awk -v l="$note1" '$3 == l { print $2 }' calls.txt)"
pprof_go -lines -top -sample_index=samples inclprof.pb.gz >top.txt 2>&1
check "pprof -lines -top: work at line $heavy" grep -Eq " work $src:$heavy\$" top.txt
check "pprof -lines -top: work at line $light" grep -Eq " work $src:$light\$" top.txt
check "pprof -lines -top: the inlined mix at line $mixl" grep -Eq " mix $src:$mixl \\(inline\\)\$" top.txt
pprof_top inclprof.pb.gz -sample_index=samples >fn-top.txt
check_eq "pprof -top: work and the inlined mix together hold work's Exclusive samples" "$work" \
  "$(awk -F'\t' '$1 == "work" || $1 == "mix (inline)" { s += $2 } END { print s }' fn-top.txt)"

# --- callgrind ---------------------------------------------------------------
callgrind_annotate --auto=yes callgrind.out.inclprof >annotate.txt 2>annotate.err
check "callgrind_annotate --auto=yes: no warnings" sh -c '! grep -E "WARNING|malformed|Use of uninit" annotate.txt annotate.err'
check "callgrind_annotate: lines.c is annotated" grep -q "Auto-annotated source: $src" annotate.txt
# The Samples column (the 4th) of the annotated source line ending in MARK.
cg_samples() { awk -v m="$1" 'index($0, m) && $0 !~ /=>/ { n = $4; gsub(",", "", n); print n; exit }' annotate.txt; }
check_near "callgrind_annotate: line $heavy (3 units of 5), share of work's samples" 60 \
  "$(pct "$(cg_samples HEAVY_LINE)" "$work")" 6
check_near "callgrind_annotate: line $light (1 unit of 5), share of work's samples" 20 \
  "$(pct "$(cg_samples LIGHT_LINE)" "$work")" 6
check_near "callgrind_annotate: line $mixl, inlined mix, share of work's samples" 20 \
  "$(pct "$(cg_samples MIX_LINE)" "$work")" 6
# The call below a call line: "=> ???:note (Nx)" right after it.
cg_calls() { awk -v m="$1" 'index($0, m) { want = 1; next } want && /=>.*:note \(/ { sub(/.*\(/, ""); sub(/x\).*/, ""); gsub(",", ""); print; exit } { want = 0 }' annotate.txt; }
check_eq "callgrind_annotate: note called $((3 * rounds))x from line $note3" $((3 * rounds)) "$(cg_calls NOTE3_LINE)"
check_eq "callgrind_annotate: note called ${rounds}x from line $note1" "$rounds" "$(cg_calls NOTE1_LINE)"

# --- html ----------------------------------------------------------------------
node "$PICS/flame-probe.mjs" inclprof.html flame.png work >probe.txt 2>probe.err
check_eq "html: Chromium opened it without errors" "errors 0" "$(grep '^errors' probe.txt)"
check_eq "html: work's tooltip names its hottest line first" "lines.c:$heavy" \
  "$(awk '$1 == "tipline" && $2 == "work" { print $4; exit }' probe.txt)"
check_near "html: ... with its share of work's samples" 60 \
  "$(pct "$(awk '$1 == "tipline" && $2 == "work" { print $3; exit }' probe.txt)" "$work")" 6
check "html: ... and the inlined mix's line" grep -q "^tipline work [0-9]* lines.c:$mixl (inlined mix)\$" probe.txt
check_eq "html: three lines named" 3 "$(grep -c '^tipline work ' probe.txt)"
done_testing
