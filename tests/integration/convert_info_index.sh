#!/bin/sh
# convert_info_index.sh - info describes a trace from the Index, Trailer and
# Footer it ends with: the same description as reading every record (info
# --scan) but for what only the replayed events tell, for the parent's file
# (four threads, one renamed) and a fork child's; and it falls back to
# reading every record, saying why, on a copy without the footer, one cut
# before its Trailer (a killed process), one whose Index fails its CRC, one
# whose footer points outside the file and one with a frame inserted before
# the Index.  report gives the same bytes with --jobs 1 and --jobs 2.
. "$INCLPROF_SRC/tests/lib.sh"
cat >busy.c <<'SRC'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) static long leaf(long x) { return x * 3 + 1; }
__attribute__((noinline)) static long mid(long x) { return leaf(x) + leaf(x + 1); }
static void *work(void *arg) {
  long s = 0, n = (long)arg;
  if (n == 2)
    pthread_setname_np(pthread_self(), "renamed");
  for (long i = 0; i < 60000 * n; i++)
    s += mid(i);
  sink = s;
  return NULL;
}
int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++)
    pthread_create(&t[i], NULL, work, (void *)(i + 1));
  for (int i = 0; i < 3; i++)
    pthread_join(t[i], NULL);
  pid_t c = fork();
  if (c == 0) {
    work((void *)1);
    exit(0);
  }
  waitpid(c, NULL, 0);
  printf("%ld\n", sink > 0);
  return 0;
}
SRC
check "build the program" cc_plugin busy busy.c -O1 -pthread
INCLPROF_OUTPUT=data ./busy >/dev/null 2>&1
check_eq "two trace files: the parent's and the fork child's" 2 "$(ls data/*.ipb | wc -l)"

# What only the replayed events tell, and the read: line, left out; the
# kernel's lost records (a busy machine overflows its event buffer now and
# then) in one wording, with their count: the index says where it overflowed,
# the records say what is not known.
norm() {
  sed -e '/^read:/d' -e '/^repairs:/d' -e '/^damage:/d' -e '/^trace:/d' -e 's/; in events: .*//' \
    -e 's/; not known 0 times .*//' -e 's/; not known \([0-9]*\) times in .*/: lost \1/' \
    -e "s/ but where the kernel's event buffer overflowed: \([0-9]*\) times in .*/: lost \1/" \
    -e 's/ ([^)]* removed)//' "$1"
}
n=0
for f in data/*.ipb; do
  n=$((n + 1))
  "$INCLPROF" info "$f" >idx$n.txt 2>&1
  check_eq "file $n: info exits 0" 0 "$?"
  "$INCLPROF" info --scan "$f" >scan$n.txt 2>&1
  check "file $n: read from its index" grep -q '^read: *its index' idx$n.txt
  check "file $n: --scan reads every record" grep -q '^read: *every record (--scan)$' scan$n.txt
  check_eq "file $n: the same description from the index as from every record" \
    "$(norm scan$n.txt)" "$(norm idx$n.txt)"
done
# The parent's file: the one with four threads.
for f in data/*.ipb; do
  "$INCLPROF" info "$f" | grep -q '^threads: *4$' && good=$f
done
"$INCLPROF" info "$good" >idx.txt 2>&1
check "the parent's threads with their events, one renamed" \
  grep -Eq '^ +[0-9]+ +7200[0-9][0-9] +[0-9]+ +0 +[0-9]+ +renamed$' idx.txt
size=$(wc -c <"$good")
cp data/*.ipt . # the function tables the copies below name

# The Footer's fields (index and trailer frame lengths), from its last 17 bytes.
footer() {
  python3 -c "import sys; b=open(sys.argv[1],'rb').read()[-17:]; print(int.from_bytes(b[4:8],'little'), int.from_bytes(b[9:13],'little'))" "$1"
}
set -- $(footer "$good")
ib=$1 tb=$2

head -c $((size - 17)) "$good" >nofooter.ipb
"$INCLPROF" info nofooter.ipb >out.txt 2>&1
check_eq "no footer: info exits 0" 0 "$?"
check "no footer: read through, and why" grep -q '^read: *every record: it has no index (written by an older runtime, under the ring size policy, or without room under its size limit)$' out.txt
check_eq "no footer: the same description" "$(norm idx.txt)" "$(norm out.txt)"

head -c $((size - 17 - tb - ib)) "$good" >killed.ipb
"$INCLPROF" info killed.ipb >out.txt 2>&1
check "killed: read through, and why" grep -q '^read: *every record: it does not end with a Trailer (the process was killed, or is still running)$' out.txt
check "killed: no trailer" grep -q '^trailer: *no trailer' out.txt

python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[$((size - 17 - tb - ib / 2))]^=0x10; open(sys.argv[2],'wb').write(b)" "$good" badindex.ipb
"$INCLPROF" info badindex.ipb >out.txt 2>&1
check "damaged index: read through, and why" grep -q '^read: *every record: its index is damaged: the Index frame before the footer fails its CRC or does not decode$' out.txt

# A footer whose lengths pass the start of the file, with a valid CRC.
python3 - "$good" badfooter.ipb <<'PY'
import sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
rec = bytearray(b[-16:-4])
rec[3:7] = (len(b)).to_bytes(4, 'little')
b[-16:] = rec + zlib.crc32(bytes(rec)).to_bytes(4, 'little')
open(sys.argv[2], 'wb').write(b)
PY
"$INCLPROF" info badfooter.ipb >out.txt 2>&1
check "footer out of bounds: read through, and why" grep -Eq '^read: *every record: its index is damaged: the footer gives [0-9]+ \+ [0-9]+ bytes, beyond the file$' out.txt

# A valid frame (a MarkName) inserted after the Header: the Index no longer
# lies where it says.
python3 - "$good" moved.ipb <<'PY'
import sys, zlib
b = open(sys.argv[1], 'rb').read()
n, shift, pos = 0, 0, 12
while True:
    c = b[pos]; pos += 1; n |= (c & 0x7f) << shift; shift += 7
    if c < 0x80: break
end_header = pos + n + 4
rec = bytes([0x42, 5, 0x08, 99, 0x12, 1, ord('x')])
frame = bytes([len(rec)]) + rec + zlib.crc32(rec).to_bytes(4, 'little')
open(sys.argv[2], 'wb').write(b[:end_header] + frame + b[end_header:])
PY
"$INCLPROF" info moved.ipb >out.txt 2>&1
check "index elsewhere: read through, and why" grep -Eq "^read: *every record: its index does not match the file: it describes [0-9]+ bytes before it, the file has $((size - 17 - tb - ib + 12))$" out.txt

"$INCLPROF" report --jobs 1 "$good" >j1.txt 2>&1
"$INCLPROF" report --jobs 2 "$good" >j2.txt 2>&1
check "report: the same bytes with --jobs 1 and --jobs 2" cmp j1.txt j2.txt
check "report: the renamed thread's calls are there" grep -q ' mid$' j1.txt
done_testing
