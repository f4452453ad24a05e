#!/bin/sh
# runtime_shared_tables.sh - the function tables of an object are written
# once per output directory, as NAME.KEY.ipt, and shared by its traces: a
# program of 4 units of 400 functions that forks children of 5 000 events
# each (its loop: 1 250 calls of u0_f0, each calling labs once).  A fork
# child's trace stays under 100 KB, under 2 KB but its events (with the
# tables in it: 160 KB); one table file, no temporary file left; report
# counts every call exactly; INCLPROF_TABLES=inline gives the same counts
# with no table file; a second run into the directory keeps the file as it
# was; six processes started at once leave one whole table; a trace copied
# alone says which table file it misses (info, report: exit 3) and reads
# again with it beside; a directory moved elsewhere reads the same.  When
# the table file cannot be written - its name taken by a directory, a
# directory made read-only, a full disk, a file-size limit below its size -
# the records go into the trace (or recording stops cleanly), no temporary
# file stays, and the program's output and status are its own (no SIGXFSZ).
# A program of 2 100 functions, each calling strtol and a function of
# another unit, writes a TableRef of a few gid runs (call lines grouped by
# name), not its records.
. "$INCLPROF_SRC/tests/lib.sh"

python3 - <<'PY'
U, F = 4, 400
for u in range(U):
    with open(f"u{u}.c", "w") as f:
        f.write("#include <stdlib.h>\n")
        for i in range(F):
            f.write(f"int u{u}_f{i}(long x);\n")
        for i in range(F):
            nxt = f"u{u}_f{i + 1}(x)" if i + 1 < F else "(int)x"
            f.write(f"__attribute__((noinline)) int u{u}_f{i}(long x) "
                    f"{{ if (x & 1) return {nxt} + 1; return (int)labs(x) + {i}; }}\n")
with open("main.c", "w") as f:
    f.write("""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int u0_f0(long);
int u1_f0(long);
int u2_f0(long);
int u3_f0(long);
/* run N: N calls of u0_f0 (each calls labs once); wait N: the same once a
 * line is read from stdin; fork C N: C children, one after another, each
 * running N */
static long run(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += u0_f0(2 * i);
  return s + u1_f0(0) + u2_f0(0) + u3_f0(0);
}
int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "run")) {
    printf("sum %ld\\n", run(atol(argv[2])));
    return 0;
  }
  if (argc == 3 && !strcmp(argv[1], "wait")) {
    char line[16];
    if (!fgets(line, sizeof line, stdin))
      return 3;
    printf("sum %ld\\n", run(atol(argv[2])));
    return 0;
  }
  if (argc != 4 || strcmp(argv[1], "fork"))
    return 2;
  for (int c = 0; c < atoi(argv[2]); c++) {
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
      printf("child %d sum %ld\\n", c, run(atol(argv[3])));
      return 0;
    }
    waitpid(p, NULL, 0);
  }
  printf("parent done\\n");
  return 0;
}
""")
PY
objs=""
for u in 0 1 2 3; do
  gcc -O1 -fno-builtin -fplugin="$INCLPROF_PLUGIN" -c u$u.c -o u$u.o || fail "compile u$u.c"
  objs="$objs u$u.o"
done
cc_plugin prog main.c $objs -O1 -fno-builtin || { fail "build prog"; exit 1; }
gcc -O1 -fno-builtin -o plain main.c u0.c u1.c u2.c u3.c || { fail "build plain"; exit 1; }
./plain fork 3 1250 >expected.out

# fixed.py TRACE: the bytes of its frames other than event batches (Record
# field 6), with the preamble: what the process writes whatever it runs.
cat >fixed.py <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
def varint(i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i
i, fixed = 12, 12
while i < len(b):
    n, j = varint(i)
    if b[j] >> 3 != 6:
        fixed += j - i + n + 4
    i = j + n + 4
print(fixed)
PY
# calls DIR FN: FN's calls in DIR's csv export
calls() {
  "$INCLPROF" export --format csv -o c.csv "$1" 2>/dev/null
  python3 "$INCLPROF_SRC/scripts/csv_query.py" c.csv "^$2\$" calls
}
# Each child: 1 250 calls of u0_f0 (each calling labs once), one of
# u1_f0..u3_f0 (each calling labs once too); the parent: none.
"$INCLPROF" record -o shared ./prog fork 3 1250 >run.out 2>run.err
check_eq "shared: the program's output" "$(cat expected.out)" "$(cat run.out)"
check_eq "shared: one table file, four traces" "1 4" \
  "$(ls shared/*.ipt | wc -l) $(ls shared/*.ipb | wc -l)"
check_eq "shared: no temporary file left" "" "$(ls -a shared | grep '\.tmp$')"
ipt=$(ls shared/*.ipt)
check "shared: the table is named by the program" sh -c 'ls shared/*.ipt | grep -q "/prog\.[0-9a-f]\{16\}\.ipt$"'
check_eq "shared: u0_f0 calls" 3750 "$(calls shared u0_f0)"
check_eq "shared: labs calls" 3759 "$(calls shared labs)"
check_eq "shared: u3_f0 calls" 3 "$(calls shared u3_f0)"
"$INCLPROF" report shared --by module >mod.txt 2>&1
check "shared: labs is libc's (its binding)" sh -c "grep -q 'libc\.so' mod.txt"
parent=$(for f in shared/*.ipb; do "$INCLPROF" info "$f" | grep -q 'fork child' || echo "$f"; done)
for f in shared/*.ipb; do
  [ "$f" = "$parent" ] && continue
  "$INCLPROF" info "$f" >info.txt
  size=$(wc -c <"$f")
  events=$(sed -n 's/^events: *\([0-9]*\) in .*/\1/p' info.txt)
  check "shared: a fork child's trace under 100 KB ($size bytes, $events events)" \
    test "$size" -lt 102400 -a "$events" -ge 5000
  fixed=$(python3 fixed.py "$f")
  check "shared: a fork child's records but its events under 2 KB ($fixed bytes)" \
    test "$fixed" -lt 2048
  check "shared: info counts the table's functions" grep -Eq '^tables: +[0-9]+ modules, (3[2-9]|[4-9][0-9])[0-9][0-9] functions$' info.txt
done

INCLPROF_TABLES=inline "$INCLPROF" record -o inline ./prog fork 3 1250 >run.out 2>run.err
check_eq "inline: no table file" 0 "$(ls inline | grep -c '\.ipt$')"
check_eq "inline: u0_f0 calls" 3750 "$(calls inline u0_f0)"
check_eq "inline: labs calls" 3759 "$(calls inline labs)"
isize=$(cat inline/*.ipb | wc -c)
ssize=$(cat shared/*.ipb | wc -c)
check "inline: the traces carry the tables ($isize bytes against $ssize)" test "$isize" -gt $((ssize * 3))

# Call lines of many names interleaved: 2 100 functions, each calling
# strtol and an instrumented function of the next unit (bench/
# units_program.sh).  Grouped by name, the table's callees are a few gid
# runs in the TableRef; in call-site order they were 4 200, past what a
# TableRef holds, and every record went into the trace (230 KB).
sh "$INCLPROF_SRC/bench/units_program.sh" lines 3 700 0 &&
  for f in lines/u*.c lines/main.c; do
    gcc -O2 -c -fplugin="$INCLPROF_PLUGIN" "$f" -o "$f.o" || exit 1
  done &&
  cc_plugin lines_prog lines/*.o || { fail "build the program of 2 100 functions"; exit 1; }
INCLPROF_OUTPUT=lines_out ./lines_prog >lines.out 2>lines.err
check "call lines: the program's output" grep -q '^sum=7 ' lines.out
check_eq "call lines: one table file" 1 "$(ls lines_out/*.ipt | wc -l)"
fixed=$(python3 fixed.py lines_out/*.ipb)
check "call lines: the trace's records but its events under 2 KB ($fixed bytes)" test "$fixed" -lt 2048
# strtol by its real name: glibc 2.38 and later redirect C23 code's to __isoc23_strtol
check_eq "call lines: strtol's calls" 2 "$(calls lines_out '(__isoc23_)?strtol')"

# Six processes at once, none finding the table written.
for i in 1 2 3 4 5 6; do INCLPROF_OUTPUT=six ./prog run 100 >/dev/null & done
wait
check_eq "six at once: one table file, no temporary file" "1 6 0" \
  "$(ls six/*.ipt | wc -l) $(ls six/*.ipb | wc -l) $(ls -a six | grep -c '\.tmp$')"
check_eq "six at once: u0_f0 calls" 600 "$(calls six u0_f0)"

# A trace copied alone: its table is missing, and said so.
mkdir alone
cp "$parent" alone/
child=$(ls shared/*.ipb | grep -v "$parent" | head -1)
cp "$child" alone/
"$INCLPROF" report alone >alone.txt 2>alone.err
check_eq "alone: report exits 3 (incomplete)" 3 "$?"
check "alone: the missing table file named, with the way out" grep -q \
  "warning: alone/.*\.ipb (and every other trace read that names it): its function table alone/prog\.[0-9a-f]*\.ipt ([0-9]* functions) cannot be used: not there; their events read as unknown functions (copy the table files \*\.ipt of the directory it was recorded in beside the trace)" alone.err
check_eq "alone: one warning for both traces" 1 "$(grep -c 'cannot be used' alone.err)"
check "alone: the report's header says so" grep -q '^warning: .* and other traces: its function table' alone.txt
"$INCLPROF" info alone/$(basename "$child") >info.txt 2>&1
check "alone: info names the missing table" grep -q "^ *its function table alone/prog\..*\.ipt ([0-9]* functions) is not there: copy the table files" info.txt
cp shared/*.ipt alone/
check_eq "alone, with its table: u0_f0 calls" 1250 "$(calls alone u0_f0)"
echo garbage >"alone/$(basename "$ipt")"
"$INCLPROF" report alone >/dev/null 2>alone.err
check "alone, a broken table file: named" grep -q "cannot be used: .*not an inclprof trace" alone.err

# The directory moved elsewhere.
mkdir -p far/away && cp -r shared far/away/moved
check_eq "moved: u0_f0 calls" 3750 "$(calls far/away/moved u0_f0)"

# A glob of the directory names the table file too: it is left out; named
# alone, it is said to be no trace.
"$INCLPROF" export --format csv -o g.csv shared/* 2>/dev/null
check_eq "glob: u0_f0 calls" 3750 "$(python3 "$INCLPROF_SRC/scripts/csv_query.py" g.csv '^u0_f0$' calls)"
"$INCLPROF" info "$ipt" >/dev/null 2>info.err
check_eq "a table file named alone: info exits 1" 1 "$?"
check_eq "a table file named alone: said so" \
  "inclprof: $ipt: a function table file (the traces of its directory share it), not a trace: give the trace files (*.ipb) or their directory" \
  "$(cat info.err)"

# Another run into the same directory: the table file is there already.
before=$(stat -c '%i %Y' "$ipt")
INCLPROF_OUTPUT=shared ./prog run 10 >/dev/null
check_eq "again: the same table file, untouched" "1 $before" \
  "$(ls shared/*.ipt | wc -l) $(stat -c '%i %Y' "$ipt")"

# The table's name taken by a directory: the records go into the trace.
mkdir blocked blocked/$(basename "$ipt")
INCLPROF_OUTPUT=blocked ./prog fork 1 1250 >run.out 2>run.err
check_eq "blocked: the program's output" "$(./plain fork 1 1250)" "$(cat run.out)"
check_eq "blocked: no temporary file" 0 "$(ls -a blocked | grep -c '\.tmp$')"
check_eq "blocked: u0_f0 calls, from the records in the traces" 1250 "$(calls blocked u0_f0)"

# A directory the process may not write to (its permissions, for a process
# that is not root), made so once the trace is open, before the first batch.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$T_DIR"
  mkdir ro && chown nobody ro && mkfifo go
  setpriv --reuid=65534 --regid=65534 --clear-groups env INCLPROF_OUTPUT=ro \
    ./prog wait 1250 <go >run.out 2>run.err &
  pid=$!
  exec 3>go
  for _ in $(seq 100); do [ -n "$(ls ro/*.ipb 2>/dev/null)" ] && break; sleep 0.1; done
  chmod 555 ro
  echo go >&3
  exec 3>&-
  wait $pid
  check_eq "read-only directory: exit status unchanged" 0 "$?"
  check_eq "read-only directory: the program's output" "$(./plain run 1250)" "$(cat run.out)"
  check_eq "read-only directory: no table file nor temporary file" 0 \
    "$(ls -a ro | grep -c '\.ipt\|\.tmp$')"
  check_eq "read-only directory: u0_f0 calls, from the records in the trace" 1250 "$(calls ro u0_f0)"
else
  echo "# read-only directory: skipped, it needs root and setpriv to run as another user"
fi

# A file-size limit below the table's size: never SIGXFSZ.
tsize=$(wc -c <"$ipt")
(ulimit -f 60; INCLPROF_OUTPUT=fsz ./prog fork 1 1250 >run.out 2>run.err); rc=$?
check_eq "ulimit -f: exit status unchanged" 0 "$rc"
check_eq "ulimit -f: the program's output" "$(./plain fork 1 1250)" "$(cat run.out)"
check_eq "ulimit -f: no table file nor temporary file (the table is $tsize bytes)" 0 \
  "$(ls -a fsz | grep -c '\.ipt\|\.tmp$')"
"$INCLPROF" info fsz >/dev/null 2>&1
check "ulimit -f: the traces read (exit 0 or 3)" test $? -le 3

# A full disk: room for the traces' start, not for the table.
mkdir full
if mount -t tmpfs -o size=256k tmpfs full 2>mount.err; then
  head -c 200000 /dev/zero >full/filler
  INCLPROF_OUTPUT=full/t ./prog fork 1 1250 >run.out 2>run.err; rc=$?
  check_eq "disk full: exit status unchanged" 0 "$rc"
  check_eq "disk full: the program's output" "$(./plain fork 1 1250)" "$(cat run.out)"
  check_eq "disk full: no table file nor temporary file" 0 \
    "$(ls -a full/t | grep -c '\.ipt\|\.tmp$')"
  umount full
else
  echo "# disk full: skipped, a tmpfs cannot be mounted here: $(cat mount.err)"
fi
done_testing
