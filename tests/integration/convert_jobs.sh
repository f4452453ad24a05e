#!/bin/sh
# convert_jobs.sh - `--jobs 2` (threads replayed on two cores) gives the same
# bytes as `--jobs 1` (one thread) from report, info and the csv, pprof,
# callgrind and folded exports, with the same warnings: on a 4-thread
# synthetic trace, and on damaged copies of it (cut short, a flipped bit, a
# lost event batch, a missing function definition) and edited ones (a thread
# ended and its tid reused, a runtime gap); and from a directory of five such
# files, which --jobs 2 and 3 read in parallel, and one holding a file that
# is no trace.
. "$INCLPROF_SRC/tests/lib.sh"

check "build the trace generator" gcc -std=c11 -O1 -D_GNU_SOURCE -I"$INCLPROF_LIBDIR/gen" \
  -I"$INCLPROF_SRC/include/inclprof" -o gen "$INCLPROF_SRC/convert/bench/gen_trace.c" \
  "$INCLPROF_LIBDIR/libinclprof.a" -lprotobuf-c -ldeflate -lz -lpthread -ldl
check "write a 4-thread trace" ./gen good.ipb 600000 4

# edit.py IN OUT ACTION: rewrites the trace's frames (varint length, record,
# crc32).  drop-batch: removes the 9th event batch; drop-function: removes
# the definition of gid 3; end-thread: inserts ThreadEnd{tid 1001} after the
# 10th event batch (later batches of 1001 are a new thread); gap: inserts a
# Gap of 5000 ticks for tid 1002 there.
cat > edit.py <<'PY'
import sys, zlib
src, dst, action = sys.argv[1:4]
b = open(src, 'rb').read()
def varint(v):
    out = bytearray()
    while True:
        out.append((v & 0x7f) | (0x80 if v > 0x7f else 0))
        v >>= 7
        if not v:
            return bytes(out)
def frame(rec):
    return varint(len(rec)) + rec + zlib.crc32(rec).to_bytes(4, 'little')
def msg(field, body):
    return varint(field << 3 | 2) + varint(len(body)) + body
out, pos, batches = bytearray(b[:12]), 12, 0
while pos < len(b):
    n, shift, start = 0, 0, pos
    while True:
        c = b[pos]; pos += 1
        n |= (c & 0x7f) << shift; shift += 7
        if c < 0x80:
            break
    rec = b[pos:pos + n]
    pos += n + 4
    keep = True
    if rec[0] == 0x32:
        batches += 1
        keep = not (action == 'drop-batch' and batches == 9)
    if action == 'drop-function' and rec[0] == 0x1a and b'\x08\x03' in rec[2:4]:
        keep = False
    if keep:
        out += b[start:pos]
    if rec[0] == 0x32 and batches == 10:
        if action == 'end-thread':
            out += frame(msg(5, bytes([0x08]) + varint(1001)))
        if action == 'gap':
            body = bytes([0x08]) + varint(1002) + bytes([0x10]) + varint(10**9) + bytes([0x18]) + varint(10**9 + 5000)
            out += frame(msg(7, body))
open(dst, 'wb').write(out)
PY
size=$(wc -c < good.ipb)
head -c $((size * 3 / 5)) good.ipb > cut.ipb
python3 -c "import sys; b=bytearray(open('good.ipb','rb').read()); b[len(b)//2]^=0x10; open('flip.ipb','wb').write(b)"
for a in drop-batch drop-function end-thread gap; do
  check "edit the trace: $a" python3 edit.py good.ipb $a.ipb $a
done

# outputs TRACE JOBS: every output of the trace with --jobs JOBS into out-JOBS/
outputs() {
  d=out-$2
  rm -rf $d && mkdir $d
  "$INCLPROF" report "$1" --jobs $2 >$d/report.txt 2>$d/report.err; echo $? >$d/report.rc
  "$INCLPROF" report "$1" --jobs $2 --tree >$d/tree.txt 2>>$d/report.err
  "$INCLPROF" report "$1" --jobs $2 --by thread >$d/threads.txt 2>>$d/report.err
  "$INCLPROF" info "$1" --jobs $2 >$d/info.txt 2>$d/info.err
  for f in csv pprof callgrind folded; do
    "$INCLPROF" export -f $f -o x.$f "$1" --jobs $2 2>$d/$f.err && mv x.$f $d/
  done
}

# same NAME TRACE RC: --jobs 1 and --jobs 2 agree byte for byte, exit RC
same() {
  outputs "$2" 1
  outputs "$2" 2
  check_eq "$1: report exit status" "$3" "$(cat out-2/report.rc)"
  check "$1: identical report, tree, thread table, info, csv, pprof, callgrind, folded and warnings" \
    diff -r out-1 out-2
}

same "clean trace" good.ipb 0
check "clean trace: all events replayed" grep -q 'threads: 4, events: 600000$' out-2/report.txt
check_eq "clean trace: 4 threads in the thread table" 4 "$(grep -c ' 4242/100[0-3]$' out-2/threads.txt)"
same "cut trace" cut.ipb 3
check "cut trace: the cut is named" grep -Eq 'cut\.ipb: offset [0-9]+: truncated' out-2/report.err
same "flipped bit" flip.ipb 3
check "flipped bit: crc mismatch named" grep -q 'crc mismatch' out-2/report.err
same "lost batch" drop-batch.ipb 0
check "lost batch: warned" grep -q '1 event batches missing' out-2/report.err
same "undefined function" drop-function.ipb 0
check "undefined function: a placeholder row" grep -q '<unknown function gid 3>' out-2/report.txt
same "thread ended, tid reused" end-thread.ipb 0
check_eq "tid reused: 5 threads" 5 "$(grep -c ' 4242/100[0-3]$' out-2/threads.txt)"
same "runtime gap" gap.ipb 0
check "runtime gap: counted" grep -q '1 runtime gaps' out-2/info.txt
mkdir session
cp good.ipb flip.ipb cut.ipb drop-function.ipb gap.ipb session/
same "session of five files" session 3
outputs session 3
check "session of five files: --jobs 3 gives the same bytes" diff -r out-1 out-3
check "session of five files: both damaged files named, in file order" \
  sh -c "head -n 2 out-3/report.err | grep -o '[a-z]*\.ipb: [a-z0-9]*' | tr '\n' ' ' |
    grep -qx 'cut.ipb: offset flip.ipb: 1 '"
check "session of five files: all processes" grep -q '^files: *5, processes: 5' out-3/report.txt
echo "not a trace at all" > session/d.ipb
same "session with a file that is no trace" session 1
check "session with a file that is no trace: named" \
  grep -q 'd.ipb: not an inclprof trace (bad magic)' out-2/report.err
"$INCLPROF" report --jobs 0 good.ipb >/dev/null 2>err
check_eq "--jobs 0: exit 2" 2 "$?"
check "--jobs 0: message" grep -q "bad --jobs '0'" err
done_testing
