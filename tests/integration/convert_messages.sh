#!/bin/sh
# convert_messages.sh - every failure message of record, info, report and
# export that a test can provoke, each asserted as the exact line(s) with its
# exit status: unreadable and damaged traces (crafted byte for byte), lost
# batches, filters that match nothing, outputs that cannot be written, a
# program that cannot be run, a runtime that could not write its trace, a
# program without instrumented code, a missing runtime library.  (Usage
# errors are in convert_cli.sh; the runtime's write failures in
# runtime_write_failures.sh; size limits in runtime_size_limit.sh.)
. "$INCLPROF_SRC/tests/lib.sh"
need python3
cc_plugin prog "$INCLPROF_SRC/tests/programs/runtime/ring_load.c" -O2 -pthread ||
  { fail "build ring_load"; exit 1; }
"$INCLPROF" record -o data ./prog 200 >/dev/null 2>&1
good=$(ls data/*.ipb)
cp data/*.ipt . # the function tables its copies below name
check "a trace was recorded" test -s "$good"

# expect DESCRIPTION STATUS EXPECTED-STDERR COMMAND...
expect() {
  d=$1 st=$2 want=$3; shift 3
  "$@" >out.txt 2>err.txt
  check_eq "$d: exit status" "$st" "$?"
  check_eq "$d: message" "$want" "$(cat err.txt)"
}

# ---- crafted traces ------------------------------------------------------
# frames.py FILE: "offset kind" per frame (kind = the Record field number)
cat >frames.py <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
at = 12
while at < len(b):
    start, n, shift = at, 0, 0
    while True:
        c = b[at]; at += 1
        n |= (c & 0x7f) << shift; shift += 7
        if not c & 0x80: break
    print(start, b[at] >> 3)
    at += n + 4
PY
# mk.py OUT HEX...: the preamble, then each HEX record framed with its crc
cat >mk.py <<'PY'
import sys, zlib, struct
out = bytearray(b'INCLPROF\x01\x00\x00\x00')
for h in sys.argv[2:]:
    r = bytes.fromhex(h)
    n = len(r); v = bytearray()
    while True:
        if n < 0x80: v.append(n); break
        v.append(n & 0x7f | 0x80); n >>= 7
    out += v + r + struct.pack('<I', zlib.crc32(r) & 0xffffffff)
open(sys.argv[1], 'wb').write(out)
PY
python3 -c "import struct; print('0a11'+'0801100018054801'+'51'+struct.pack('<d',1e9).hex())" >hdr.hex
hdr=$(cat hdr.hex)

: >empty.ipb
expect "info: empty file" 1 "inclprof: empty.ipb: empty file, not a trace" "$INCLPROF" info empty.ipb
printf 'NOTATRACE-------' >magic.ipb
expect "report: bad magic" 1 "inclprof: magic.ipb: not an inclprof trace (bad magic); name a PID.ipb file or the directory 'inclprof record' wrote" "$INCLPROF" report magic.ipb
{ printf 'INCLPROF\011\000\000\000'; tail -c +13 "$good"; } >version.ipb
expect "export: unknown major version" 1 "inclprof: version.ipb: unsupported format version 9 (this reader knows 1 to 2)" \
  "$INCLPROF" export -f csv -o x.csv version.ipb
printf 'INCLPROF\001' >short.ipb
expect "info: shorter than the preamble" 1 "inclprof: short.ipb: truncated preamble (file shorter than 12 bytes)" \
  "$INCLPROF" info short.ipb
python3 mk.py pre.ipb
expect "info: the preamble alone" 1 "inclprof: pre.ipb: offset 12: no records after the preamble (empty trace)" \
  "$INCLPROF" info pre.ipb
python3 mk.py notheader.ipb 4a00
expect "report: first record not a header" 1 "inclprof: notheader.ipb: offset 12: first record is not a header" \
  "$INCLPROF" report notheader.ipb
python3 mk.py notps.ipb 0a06080110001805
expect "report: header without a tick rate" 1 "inclprof: notps.ipb: offset 12: header has no valid ticks_per_second" \
  "$INCLPROF" report notps.ipb
python3 -c "import struct; print('0a11'+'0801100018054801'+'51'+struct.pack('<d',100).hex())" >slow.hex
python3 mk.py slow.ipb "$(cat slow.hex)"
expect "report: implausible tick rate" 1 "inclprof: slow.ipb: offset 12: header: implausible ticks_per_second 100" \
  "$INCLPROF" report slow.ipb
# Damage after a valid header: a warning naming file and offset; info
# describes the file (exit 3), report reports the part before (exit 3).
python3 mk.py hdronly.ipb "$hdr"
at=$(wc -c <hdronly.ipb) # 36: the first byte after the header's frame
python3 mk.py undec.ipb "$hdr" ffff
expect "report: undecodable record" 3 "inclprof: warning: undec.ipb: offset $at: undecodable record (the records before it are used)" \
  "$INCLPROF" report undec.ipb
{ cat undec.ipb | head -c $at; printf '\377\377\377\377\377\377\377\377\377\377\377'; } >longvar.ipb
expect "info: frame length varint too long" 3 "inclprof: warning: longvar.ipb: offset $at: bad frame length (varint too long) (the records before it are used)" \
  "$INCLPROF" info longvar.ipb
{ head -c $at undec.ipb; printf '\200\200\200\100'; } >huge.ipb
expect "info: frame length over 64 MiB" 3 "inclprof: warning: huge.ipb: offset $at: bad frame length (larger than 64 MiB) (the records before it are used)" \
  "$INCLPROF" info huge.ipb
{ head -c $at undec.ipb; printf '\200'; } >cutlen.ipb
expect "info: cut inside a length" 3 "inclprof: warning: cutlen.ipb: offset $at: truncated frame (cut inside the length) (the records before it are used)" \
  "$INCLPROF" info cutlen.ipb
last=$(python3 frames.py "$good" | tail -1 | cut -d' ' -f1)
head -c $(($(wc -c <"$good") - 3)) "$good" >cut.ipb
expect "report: a killed process's trace cut inside its last frame" 3 \
  "inclprof: warning: cut.ipb: offset $last: truncated frame (file ends inside a record) (the records before it are used)" \
  "$INCLPROF" report cut.ipb
second=$(python3 frames.py "$good" | sed -n 2p | cut -d' ' -f1)
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[$second + 3]^=1; open('flip.ipb','wb').write(b)" "$good"
third=$(python3 frames.py "$good" | sed -n 3p | cut -d' ' -f1)
expect "export: a flipped bit" 3 "inclprof: warning: flip.ipb: 1 damaged stretch skipped ($((third - second)) B, the first at offset $second: crc mismatch (corrupted record)); the records around it are used
inclprof export: wrote f.csv" "$INCLPROF" export -f csv -o f.csv flip.ipb

# A batch missing from the middle of a thread's stream.
python3 - "$good" <<'PY'
import sys, subprocess
b = open(sys.argv[1], 'rb').read()
fr = [tuple(map(int, l.split())) for l in subprocess.run(['python3', 'frames.py', sys.argv[1]], capture_output=True, text=True).stdout.split('\n') if l]
ends = [f[0] for f in fr[1:]] + [len(b)]
batches = [i for i, f in enumerate(fr) if f[1] == 6]
drop = batches[1]
open('lost.ipb', 'wb').write(b[:fr[drop][0]] + b[ends[drop]:])
PY
"$INCLPROF" report lost.ipb >out.txt 2>err.txt
check_eq "report: a lost batch: exit status" 0 "$?"
check "report: a lost batch: the warning names file, thread and count" grep -Eqx \
  "inclprof: warning: lost\.ipb: thread [0-9]+: 1 event batches missing \(lost data: their time is not attributed, but a call whose exit was in them stays open and reads too long\)" err.txt

# ---- inputs and filters ---------------------------------------------------
expect "report: a missing path" 1 "inclprof: nothing-here: cannot open: No such file or directory; name a trace file or directory, or record one with 'inclprof record -o nothing-here -- PROG'" \
  "$INCLPROF" report nothing-here
mkdir empty-dir
expect "info: a directory without traces" 1 \
  "inclprof: empty-dir: directory holds no trace files (*.ipb); record one with 'inclprof record -o empty-dir -- PROG'" \
  "$INCLPROF" info empty-dir
mkdir -p sessions/run1 && cp "$good" sessions/run1/
expect "report: a directory of trace directories" 1 \
  "inclprof: sessions: directory holds no trace files (*.ipb), but its subdirectories run1 do; give those instead, e.g. sessions/run1" \
  "$INCLPROF" report sessions
"$INCLPROF" report --top 3 data "$good" >twice.txt 2>err.txt
check_eq "report: a file named twice (directory and file): one warning" \
  "inclprof: warning: $good: named again (1 file(s) in all): each file is read once" "$(cat err.txt)"
check_eq "report: a file named twice is read once" "files:        1" "$(head -c 15 twice.txt)"
expect "report --thread that matches nothing" 1 "inclprof report: --thread 1: no such thread in data (inclprof info lists them)" \
  "$INCLPROF" report --thread 1 data
expect "report --process that matches nothing" 1 "inclprof report: --process 1: no such process in data (inclprof info lists them)" \
  "$INCLPROF" report --process 1 data
expect "export --thread that matches nothing" 1 "inclprof export: --thread 1: no such thread in data (inclprof info lists them)" \
  "$INCLPROF" export -f csv --thread 1 -o t.csv data
expect "report --callers of a function that did not run" 1 \
  "inclprof report: no function named 'nosuch' ran (names are the demangled or assembler names of the table)" \
  "$INCLPROF" report --callers nosuch data
expect "export --value samples without samples" 1 \
  "inclprof export: --value samples: data holds no samples (record with 'inclprof record --sample-hz N')" \
  "$INCLPROF" export -f pprof --value samples -o s.pb data

# ---- outputs ---------------------------------------------------------------
expect "export into a missing directory" 1 "inclprof export: no-dir/x.csv: cannot write: No such file or directory; give a writable path with -o" \
  "$INCLPROF" export -f csv -o no-dir/x.csv data
if [ -c /dev/full ]; then
  expect "export to a full device" 1 "inclprof export: /dev/full: write failed: No space left on device" \
    "$INCLPROF" export -f csv -o /dev/full data
  # the Perfetto export drains its own buffer: by the close nothing is left
  # to fail on, and the write that failed gives the reason
  expect "perfetto export to a full device" 1 \
    "inclprof export: /dev/full: write failed: No space left on device" \
    "$INCLPROF" export -f perfetto -o /dev/full data
  check "/dev/full is still a device" test -c /dev/full
fi

# ---- record ------------------------------------------------------------------
expect "record: a program that does not exist" 127 "inclprof record: cannot run ./no-such-prog: No such file or directory" \
  "$INCLPROF" record -o rec ./no-such-prog
check "record: ... and leaves no empty trace directory behind" test ! -e rec
expect "record: a program without instrumented code" 0 \
  "inclprof record: no trace was written to rec/: true ran no code compiled with the plugin with the runtime loaded (build it with -fplugin=inclprof; a static or setuid program ignores LD_PRELOAD: link it with -linclprof) (status 0)" \
  "$INCLPROF" record -o rec true
# The program replaces the trace directory with a file before the runtime starts.
"$INCLPROF" record -o gone -- sh -c 'rm -rf gone && touch gone && exec ./prog 1' >out.txt 2>err.txt
check_eq "record: the runtime could not write: the program's status" 0 "$?"
check_eq "record: the runtime could not write: the program's output" "leaf calls: 200" "$(cat out.txt)"
p=$(sed -n 's|^inclprof record: .*/gone/\([0-9]*\)\.ipb: .*|\1|p' err.txt)
check_eq "record: the runtime could not write: record's summary with the runtime's cause (nothing of the runtime's on the program's stderr)" \
  "inclprof record: no trace was written to gone/: the runtime could not write it: cannot create $PWD/gone/$p.ipb: Not a directory (status 0)" \
  "$(cat err.txt)"
expect "record: -o names a file" 2 "inclprof record: gone is not a directory; choose another with -o DIR" \
  "$INCLPROF" record -o gone ./prog 1
expect "record: -o cannot be made" 2 \
  "inclprof record: cannot create the trace directory gone/sub: Not a directory; choose another with -o DIR" \
  "$INCLPROF" record -o gone/sub ./prog 1
mkdir alone && cp "$INCLPROF" alone/inclprof
expect "record: no runtime library beside the command" 2 \
  "inclprof record: libinclprof.so not found next to this command or in ../lib; reinstall inclprof" \
  alone/inclprof record -o rec ./prog 1
expect "an unknown command" 2 "inclprof: unknown command 'recrod' (try 'inclprof --help')" "$INCLPROF" recrod
done_testing
