#!/bin/sh
# convert_bad_input.sh - `inclprof report` and `info` on bad input: empty
# file, wrong magic, unknown version, truncation, flipped bits, a directory
# without traces, a missing path.  Each gives one line on stderr naming the
# file (and the byte offset where it applies) and a non-zero exit; a trace
# cut short is still reported up to the damage.
. "$INCLPROF_SRC/tests/lib.sh"

gcc -O1 -fplugin="$INCLPROF_PLUGIN" "$INCLPROF_SRC/tests/programs/convert/proportions.c" -o prog \
  || { fail "build the test program with the plugin"; exit 1; }
"$INCLPROF" record -o data ./prog >/dev/null 2>&1
good=$(ls data/*.ipb | head -1)
cp data/*.ipt . # the function tables its copies below name
check "a trace was recorded" test -s "$good"
size=$(wc -c < "$good")

# bad NAME FILE PATTERN: report and info fail with one stderr line matching PATTERN
bad() {
  for cmd in report info; do
    "$INCLPROF" $cmd "$2" >/dev/null 2>err
    rc=$?
    check "$1: $cmd exits non-zero" test "$rc" -ne 0
    check_eq "$1: $cmd prints one line" 1 "$(wc -l < err)"
    check "$1: $cmd names the file and fault" grep -Eq "$3" err
  done
}

: > empty.ipb
bad "empty file" empty.ipb 'empty\.ipb: .*empty'
printf 'NOTATRACE-------' > magic.ipb
bad "wrong magic" magic.ipb 'magic\.ipb: .*magic'
{ printf 'INCLPROF\011\000\000\000'; tail -c +13 "$good"; } > version.ipb
bad "unknown major version" version.ipb 'version\.ipb: .*version 9'
head -c 20 "$good" > short.ipb
bad "cut inside the header" short.ipb 'short\.ipb: offset 12: .*truncated'
mkdir nothing && touch nothing/readme.txt
bad "directory without traces" nothing 'nothing: .*no trace files'
bad "missing path" does-not-exist 'does-not-exist: cannot open'
check "default input inclprof.data is named when missing" \
  sh -c '"$INCLPROF" report 2>&1 >/dev/null | grep -q "^inclprof: inclprof.data: cannot open"'

# A trace cut short (a killed process): the part before is reported, the
# damage named with its offset, exit status 3.
head -c $((size - 7)) "$good" > cut.ipb
"$INCLPROF" report cut.ipb >out 2>err
check_eq "cut trace: exit status 3 (damaged)" 3 "$?"
check "cut trace: stderr names file and offset" grep -Eq 'cut\.ipb: offset [0-9]+: truncated' err
check "cut trace: the functions before the cut are reported" grep -Eq ' main$' out
check "cut trace: the report carries the warning" grep -q '^warning: .*cut\.ipb: offset' out

# One flipped bit in the middle: the crc catches it (info --scan reads every
# frame; info alone reads the index at the end), the reader skips to the
# next valid frame and reads on to the trailer.
half=$((size / 2))
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[$half]^=0x10; open(sys.argv[2],'wb').write(b)" "$good" flip.ipb
"$INCLPROF" info --scan flip.ipb >out 2>err
check_eq "flipped bit: exit status 3" 3 "$?"
check "flipped bit: the skipped stretch named with its offset and fault" \
  grep -Eq 'flip\.ipb: 1 damaged stretch skipped \(.*, the first at offset [0-9]+: crc mismatch' err
check "flipped bit: info shows the damage" grep -q '^damage: .*crc mismatch' out
check "flipped bit: the trailer after the damage is read" grep -q '^trailer: *clean shutdown' out

# Usage errors exit 2; --help exits 0.
"$INCLPROF" report --by nonsense data >/dev/null 2>err
check_eq "bad --by: exit 2" 2 "$?"
check "bad --by: message" grep -q "bad --by level 'nonsense'" err
"$INCLPROF" report --top -3 data >/dev/null 2>&1
check_eq "bad --top: exit 2" 2 "$?"
"$INCLPROF" report --callers no_such_function data >/dev/null 2>err
check_eq "unknown --callers function: exit 1" 1 "$?"
check "report --help" sh -c '"$INCLPROF" report --help | grep -q "^usage: inclprof report"'
check "info --help" sh -c '"$INCLPROF" info --help | grep -q "^usage: inclprof info"'
done_testing
