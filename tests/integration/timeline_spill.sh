#!/bin/sh
# timeline_spill.sh - the timeline exports (perfetto, speedscope) keep
# at most 32 MiB of calls in memory and sort the rest through a temporary
# file: on 2.7 M calls (108 MB of them) the file is byte for byte the one
# written with every call in memory (TMPDIR unusable: the export says so
# and keeps them in memory), and the export needs less memory.  Memory
# figures mean nothing under ASan, so make check does not repeat this test
# there (test_export_pictures.c spills and merges under ASan+UBSan).
. "$INCLPROF_SRC/tests/lib.sh"
gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$INCLPROF_SRC/tests/programs/convert/many_calls.c" -o calls ||
  fail "program compiles"
"$INCLPROF" record -o data --transitions none ./calls 2700000 >/dev/null 2>&1
"$INCLPROF" export --format csv -o calls.csv data 2>/dev/null
check_eq "leaf: 2700000 calls recorded" 2700000 \
  "$(python3 "$INCLPROF_SRC/scripts/csv_query.py" calls.csv '^leaf$' calls)"
# max RSS of the export (KiB), its stderr in $1.err
peak() {
  out=$1
  shift
  python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[2:], stderr=open(sys.argv[1], "w"), check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$out.err" "$@"
}
# --max-size 0: every call, so that the spill holds all 2.7 M of them.
mkdir tmp
for format in perfetto speedscope; do
  spilled=$(TMPDIR=$T_DIR/tmp peak "$format-spilled" "$INCLPROF" export --format "$format" --max-size 0 -o "$format-spilled" data)
  check_eq "$format: spilled to a temporary file, nothing said" "inclprof export: wrote $format-spilled" \
    "$(cat "$format-spilled.err")"
  check_eq "$format: the temporary file is gone" "" "$(ls tmp)"
  memory=$(TMPDIR=/nonexistent peak "$format-memory" "$INCLPROF" export --format "$format" --max-size 0 -o "$format-memory" data)
  check_eq "$format: without a usable TMPDIR, one line names the cause and keeps the calls in memory" \
    "inclprof export: cannot create a temporary file in /nonexistent (No such file or directory); keeping every call in memory (set TMPDIR to a writable directory with room)" \
    "$(head -n1 "$format-memory.err")"
  check "$format: the same file either way" cmp "$format-spilled" "$format-memory"
  check "$format: the export peaked under 90 MB, the in-memory one over the 108 MB its calls take ($spilled KiB, $memory KiB)" \
    test "$spilled" -lt 92160 -a "$memory" -gt 105469
done
done_testing
