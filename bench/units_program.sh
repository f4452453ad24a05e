#!/bin/sh
# units_program.sh - writes the sources of a program of many translation
# units, the shape whose exit once cost seconds under the runtime: UNITS
# units of FUNCS functions each, every function with a call site into the
# next unit and one into libc that never run (x == 0 takes neither), and
# main calling the first function of each unit once.  EXTRA more dynamic
# symbols (data, in extra.c) let a test grow the symbol table alone.  Link
# the objects with -rdynamic, so that every function is a dynamic symbol.
# main also runs one chain across units: u0_f1(3) calls u1_f1 and u2_f1,
# and strtol twice.  The program prints the sum of main's calls (UNITS + 4)
# and its own CPU time when main returns, in microseconds:
# "sum=S main_cpu_us=N".
#   usage: bench/units_program.sh DIR UNITS FUNCS EXTRA
set -eu
[ $# -eq 4 ] || { echo "usage: units_program.sh DIR UNITS FUNCS EXTRA" >&2; exit 2; }
dir=$1 units=$2 funcs=$3 extra=$4
mkdir -p "$dir"
awk -v dir="$dir" -v units="$units" -v funcs="$funcs" -v extra="$extra" 'BEGIN {
  for (u = 0; u < units; u++) {
    f = dir "/u" u ".c"
    next_u = (u + 1) % units
    print "#include <stdlib.h>" > f
    for (j = 0; j < funcs; j++)
      printf "int u%d_f%d(int x);\n", next_u, j > f
    for (j = 0; j < funcs; j++) {
      printf "__attribute__((noinline)) int u%d_f%d(int x) {\n", u, j > f
      printf "  if (x > 1)\n    return u%d_f%d(x - 1) + (int)strtol(\"%d\", NULL, 10);\n", next_u, j, j > f
      printf "  return x * %d;\n}\n", j + 1 > f
    }
    close(f)
  }
  f = dir "/main.c"
  print "#include <stdio.h>\n#include <time.h>" > f
  for (u = 0; u < units; u++)
    printf "int u%d_f0(int x);\n", u > f
  print "int u0_f1(int x);" > f
  print "int main(void) {\n  long sum = 0;" > f
  for (u = 0; u < units; u++)
    printf "  sum += u%d_f0(1);\n", u > f
  if (funcs > 1)
    printf "  sum += u0_f1(3);\n" > f
  print "  struct timespec t;\n  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);" > f
  print "  printf(\"sum=%ld main_cpu_us=%ld\\n\", sum, (long)t.tv_sec * 1000000 + t.tv_nsec / 1000);" > f
  print "  return 0;\n}" > f
  close(f)
  f = dir "/extra.c"
  print "/* dynamic symbols that nothing uses */" > f
  for (k = 0; k < extra; k++)
    printf "int extra_symbol_%d = %d;\n", k, k > f
  close(f)
}'
