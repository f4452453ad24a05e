#!/bin/sh
# examples_dlopen_filter.sh - examples/dlopen-filter: an instrumented library
# loaded with dlopen and unloaded with dlclose three times is reported under
# its own module with exact call counts (its function table written once,
# shared by its three loads), and what inclprof.filter excludes
# (debug_*, re:^checksum_, callsites=none) is absent.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }

check "dlopen-host and libshapes.so build with the plugin and the filter file" \
  env -u MAKEFLAGS -u MAKELEVEL make -s -C "$INCLPROF_SRC/examples/dlopen-filter" O="$T_DIR/dl" INCLPROF_PLUGIN="$INCLPROF_PLUGIN"
"$INCLPROF" record -o dl.data -- ./dl/dlopen-host "$T_DIR/dl/libshapes.so" 3 >run.out 2>run.err
check_eq "dlopen-host exits 0 under inclprof record" 0 $?
check_eq "one table file for the host, one for the library (the same for each of its loads)" \
  "dlopen-host libshapes.so" "$(ls dl.data/*.ipt | sed 's|.*/||; s|\.[0-9a-f]*\.ipt$||' | sort | tr '\n' ' ' | sed 's/ $//')"
check "csv export" "$INCLPROF" export --format csv -o dl.csv dl.data

calls() { q dl.csv "$1" calls | head -n1; }
for f in circle_area rectangle_area triangle_area; do
  check_eq "$f: 10000 calls in each of 3 loads" 30000 "$(calls "^$f\$")"
  check "$f is reported in module libshapes.so" sh -c \
    "python3 '$INCLPROF_SRC/scripts/csv_query.py' dl.csv '^$f\$' module | grep -q 'libshapes\.so\$'"
done
check_eq "shapes_total_area: once per load" 3 "$(calls '^shapes_total_area$')"
check "shapes_total_area is in module libshapes.so" sh -c \
  "python3 '$INCLPROF_SRC/scripts/csv_query.py' dl.csv '^shapes_total_area\$' module | grep -q 'libshapes\.so\$'"
check_eq "main (host): 1 call" 1 "$(calls '^main$')"
check "main is in the host's module, not the library's" sh -c \
  "python3 '$INCLPROF_SRC/scripts/csv_query.py' dl.csv '^main\$' module | grep -q 'dlopen-host\$'"
# absent REGEX: the CSV is readable and no function name matches REGEX
absent() { rows=$(q dl.csv "$1" calls) && [ -z "$rows" ]; }
check "checksum_mix (excluded by re:^checksum_) is absent" absent 'checksum'
check "debug_log (excluded by debug_*) is absent" absent 'debug_log'
check "no call-site rows (callsites=none): no dlopen, dlsym, sqrt" absent '^(dlopen|dlsym|dlclose|sqrt)$'

# The plugin's report says why the helper was left out.
check "the plugin's report= file lists checksum_mix as excluded" sh -c \
  "gcc -O2 -fPIC -shared -fplugin='$INCLPROF_PLUGIN' -fplugin-arg-inclprof-filter='$INCLPROF_SRC/examples/dlopen-filter/inclprof.filter' \
     -fplugin-arg-inclprof-report=report.txt '$INCLPROF_SRC/examples/dlopen-filter/shapes.c' -o libx.so -lm &&
   grep 'checksum_mix' report.txt | grep -qi 'exclu'"
done_testing
