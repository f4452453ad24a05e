#!/bin/sh
# runtime_exit_cost.sh - a process's exit under the runtime costs the same
# whatever the number of its dynamic symbols.  bench/units_program.sh
# writes a program of 40 units of 30 functions, each with a cross-unit and a
# libc call site that never run, linked -rdynamic twice: as is (1 200
# dynamic symbols) and with 12 000 more.  The exit's CPU time (the
# process's CPU time less what it had used when main returned), median of
# three interleaved runs each, recorded and plain:
#  - with 10x the symbols the recorded exit costs at most 10 ms more (naming
#    each call site with dladdr cost 130 ms more here, and 4 s for 150 units
#    of 100 functions);
#  - the recorded exit is within 20 ms of the plain one;
#  - and the names are right: the chain main runs across units has the
#    program's counts, strtol is in libc (under its real name: glibc 2.38
#    and later redirect C23 code's strtol to __isoc23_strtol), the
#    program's output unchanged.
# Then the instructions (callgrind: exact, whatever the machine's load)
# that start-up and exit add to the program under the runtime, against the
# same binary without it, per entry of its function table (an instrumented
# function or a call line, 3 600 here), in the first process of an output
# directory (which writes the table file) and in a later one (which names
# it).  A later process registers the functions (their gids, by descriptor
# and by name) and counts each unit's call lines, whose gids are one range
# per table, given when a batch first names one of a unit's: 1.88 M
# instructions over plain here, about 340 000 to start plus 420 per entry
# (a table callee costs the lookup of its name among the instrumented
# functions'; with a map by address and one of waiting callees besides the
# one by name it was 2.19 M, and when each callee had its own gid, map
# entry and place in a sorted table 3.7 M): at most 500 000 + 450 per
# entry.  Writing an entry's row costs 840-990 more with the runtime
# built by GCC 12, 1 010 by GCC 11 (4 000 with protobuf-c's generic
# packer): at most 1 300 per entry more in the first.
. "$INCLPROF_SRC/tests/lib.sh"
need python3 valgrind
Q="$INCLPROF_SRC/scripts/csv_query.py"
sh "$INCLPROF_SRC/bench/units_program.sh" src 40 30 12000 || { fail "write the program"; exit 1; }
for f in src/u*.c src/main.c; do
  gcc -O2 -c -fplugin="$INCLPROF_PLUGIN" "$f" -o "$f.o" || { fail "compile $f"; exit 1; }
done
gcc -O2 -c src/extra.c -o src/extra.o &&
  gcc -rdynamic src/u*.c.o src/main.c.o -o units &&
  gcc -rdynamic src/u*.c.o src/main.c.o src/extra.o -o units_x || { fail "link the programs"; exit 1; }
n1=$(nm -D units | wc -l) n10=$(nm -D units_x | wc -l)
check "the second program has 10x the dynamic symbols ($n1, $n10)" test "$n10" -ge $((10 * n1))

# exit_ms [ENV=VALUE...] PROGRAM: its exit's CPU time in ms (printed with
# the program's output line, in out.txt)
cat >exit_cpu.py <<'EOF'
import os, re, sys
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.dup2(w, 1)
    os.execvpe(sys.argv[1], sys.argv[1:], os.environ)
os.close(w)
out = os.read(r, 4096).decode()
_, status, ru = os.wait4(pid, 0)
main_us = int(re.search(r"main_cpu_us=(\d+)", out).group(1))
total_us = (ru.ru_utime + ru.ru_stime) * 1e6
print("%.3f %s" % ((total_us - main_us) / 1000, out.split()[0]))
EOF
exit_ms() { python3 exit_cpu.py "$@"; }
median() { sort -n | sed -n 2p; }

: >rec1 && : >rec10 && : >plain1
for i in 1 2 3; do
  INCLPROF_OUTPUT=o1 LD_PRELOAD="$INCLPROF_LIBDIR/libinclprof.so" exit_ms ./units >>rec1
  INCLPROF_OUTPUT=o10 LD_PRELOAD="$INCLPROF_LIBDIR/libinclprof.so" exit_ms ./units_x >>rec10
  exit_ms ./units >>plain1
done
check_eq "the recorded programs print the plain one's sum" "sum=44 sum=44" \
  "$(awk '{ print $2 }' rec1 | sort -u) $(awk '{ print $2 }' rec10 | sort -u)"
r1=$(cut -d' ' -f1 rec1 | median) r10=$(cut -d' ' -f1 rec10 | median) p1=$(cut -d' ' -f1 plain1 | median)
check "10x the dynamic symbols: the recorded exit costs at most 10 ms more ($r1 ms, $r10 ms)" \
  awk -v a="$r1" -v b="$r10" 'BEGIN { exit !(b - a <= 10) }'
check "the recorded exit is within 20 ms of the plain one ($p1 ms plain, $r1 ms recorded)" \
  awk -v a="$p1" -v b="$r1" 'BEGIN { exit !(b - a <= 20) }'

"$INCLPROF" export --format csv -o rows.csv o10 2>/dev/null
for f in u0_f1 u1_f1 u2_f1; do
  check_eq "$f: one call per run, in the program" "3	$PWD/units_x" "$(python3 "$Q" rows.csv "^$f\$" calls module)"
done
check_eq "strtol: the two calls of each run, in libc" "6 libc.so.6" \
  "$(python3 "$Q" rows.csv '^(__isoc23_)?strtol$' calls module | awk -F'\t' '{ n = split($2, p, "/"); print $1, p[n] }')"
check_eq "no other function of the chain ran" "" "$(python3 "$Q" rows.csv '^u[0-9]+_f([2-9]|[12][0-9])$' calls)"

# instr [ENV=VALUE...]: the instructions callgrind counts in ./units (0 when it fails)
instr() {
  n=$(env TMPDIR="$PWD" "$@" valgrind --tool=callgrind --callgrind-out-file=/dev/null ./units 2>&1 >/dev/null |
    sed -n 's/.*Collected : *//p')
  echo "${n:-0}"
}
plain=$(instr) first=$(instr INCLPROF_OUTPUT=cg LD_PRELOAD="$INCLPROF_LIBDIR/libinclprof.so")
later=$(instr INCLPROF_OUTPUT=cg LD_PRELOAD="$INCLPROF_LIBDIR/libinclprof.so")
entries=$("$INCLPROF" info cg 2>/dev/null | sed -n 's/^tables: .* \([0-9]*\) functions$/\1/p' | sort -u)
entries=${entries:-0}
echo "# instructions: plain $plain, recorded first $first, later $later; $entries table entries"
check "callgrind counted each run (plain $plain, first $first, later $later)" \
  test "$plain" -gt 0 -a "$first" -gt 0 -a "$later" -gt 0
check "the table has the program's 1 200 functions and 2 400 call lines, and main's ($entries)" \
  test "$entries" -ge 3600 -a "$entries" -le 3700
check "a later process adds at most 500 000 + 450 instructions per table entry ($later vs $plain plain)" \
  test $((later - plain)) -le $((500000 + 450 * entries))
check "the first process adds at most 1 300 per entry to write the table file ($first vs $later)" \
  test $((first - later)) -le $((1300 * entries))
done_testing
