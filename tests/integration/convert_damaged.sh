#!/bin/sh
# convert_damaged.sh - a 3 M-call trace with 8 bits flipped at random places
# (a fixed seed): the reader skips each damaged stretch to the next valid
# frame instead of stopping at the first, so the trailer and all but the
# damaged batches are read; report, info and diff name the damage; a trace
# cut short is told apart from one whose process was killed.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
N=3000000

check "many_calls builds" cc_plugin many "$INCLPROF_SRC/tests/programs/convert/many_calls.c" -O2
"$INCLPROF" record -o good -- ./many $N >/dev/null 2>&1
good=$(ls good/*.ipb)
mkdir bad cut
cp good/*.ipt bad/ # the function table the damaged copies name
cp good/*.ipt cut/
python3 - "$good" bad/flipped.ipb <<'EOF2'
import random, sys
b = bytearray(open(sys.argv[1], "rb").read())
rnd = random.Random(3)
for _ in range(8):
    k = rnd.randrange(4096, len(b) - 64)
    b[k] ^= 1 << rnd.randrange(8)
open(sys.argv[2], "wb").write(b)
EOF2
"$INCLPROF" export --format csv -o bad.csv bad 2>err
check_eq "export of the damaged trace: exit status 3" 3 "$?"
check "the warning counts the skipped stretches and names the first" \
  grep -Eq 'flipped\.ipb: [1-8] damaged stretch(es)? skipped \(.*, the first at offset [0-9]+: crc mismatch' err
calls=$(q bad.csv '^leaf$' calls)
# A flipped bit costs at most the batch it falls in: 16 384 events and at
# most 256 more of headroom, so at most 8 320 entries of leaf.
low=$((N - 8 * 8320))
if [ "${calls:-0}" -ge $low ] && [ "${calls:-0}" -lt $N ]; then
  ok "leaf: $calls of $N calls read past the damage (at most 8 batches lost)"
else
  fail "leaf: $calls calls read; expected between $low and $((N - 1))"
fi
"$INCLPROF" info bad >info.txt 2>/dev/null
check "info reads the trailer after the damage" grep -q '^trailer: *clean shutdown' info.txt
"$INCLPROF" report bad >report.txt 2>/dev/null
check "report does not guess that the process was killed" sh -c "! grep -q 'killed?' report.txt"
check "report names the lost batches" grep -q 'event batches lost' report.txt

# A file cut inside a record: no trailer, and the report says why.
head -c 600 "$good" >cut/cut.ipb
"$INCLPROF" report cut >cut.txt 2>/dev/null
check "a cut trace is named as cut, not as killed" \
  grep -q 'no trailer: the file ends in a damaged record' cut.txt
mkdir cut2 && cp cut/* cut2/
"$INCLPROF" diff cut cut2 >/dev/null 2>diff.err
check "diff names a trace damaged before any call as damaged" grep -q 'damaged before any call was recorded' diff.err
done_testing
