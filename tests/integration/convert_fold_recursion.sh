#!/bin/sh
# convert_fold_recursion.sh - report's table folds recursion into the call
# tree it replays: a program whose call paths rarely repeat
# (tests/programs/convert/deep_paths.c: 3000 recursions 64 deep through
# step and one of fa, fb, fc) gives, by function and by module, the table
# of an unfolded read (report --process PID keeps every path) byte for
# byte, with the program's own call counts, and takes under a quarter of
# its memory (peak RSS, getrusage of the child; measured 7.6 MB against
# 82 MB).
. "$INCLPROF_SRC/tests/lib.sh"
cc_plugin deep_paths "$INCLPROF_SRC/tests/programs/convert/deep_paths.c" -O2 ||
  { fail "build deep_paths"; exit 1; }
"$INCLPROF" record -o out -- ./deep_paths 3000 >prog.out 2>prog.err
check_eq "recorded: the program's status" 0 "$?"
pid=$(ls out | sed -n 's/^\([0-9]*\)\.ipb$/\1/p' | head -1)

# peak_kb OUT CMD...: runs CMD (its output into OUT), prints its peak RSS in
# KB (tests/programs/convert/peak_rss.c); an AddressSanitizer build without
# its quarantine of freed memory
gcc -O1 -o peak "$INCLPROF_SRC/tests/programs/convert/peak_rss.c" || fail "build the peak launcher"
peak_kb() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" ./peak "$@" 2>/dev/null; }
table() { sed -n '/El Incl/,$p' "$1"; }
calls() { awk -v f="$2" '$NF == f { print $1 }' "$1"; }
folded_kb=$(peak_kb folded.txt "$INCLPROF" report out)
whole_kb=$(peak_kb whole.txt "$INCLPROF" report --process "$pid" out)
check_eq "step's calls are the program's" "$(sed -n 's/^step \([0-9]*\) .*/\1/p' prog.out)" \
  "$(calls folded.txt step)"
check_eq "fa, fb and fc's calls are the program's" "$(sed -n 's/.* fabc \([0-9]*\) .*/\1/p' prog.out)" \
  "$(($(calls folded.txt fa) + $(calls folded.txt fb) + $(calls folded.txt fc)))"
check_eq "by function: the folded table is the unfolded one" "$(table whole.txt)" "$(table folded.txt)"
"$INCLPROF" report --by module out >folded-mod.txt 2>&1
"$INCLPROF" report --by module --process "$pid" out >whole-mod.txt 2>&1
check_eq "by module: the folded table is the unfolded one" "$(table whole-mod.txt)" \
  "$(table folded-mod.txt)"
check "folded: under a quarter of the unfolded read's memory ($folded_kb KB, unfolded $whole_kb KB)" \
  test $((folded_kb * 4)) -lt "$whole_kb"
done_testing
