#!/bin/sh
# export_synthetic.sh - a synthetic trace with exactly known values and names
# full of what viewers must escape (quotes, backslashes, ';', '<', ',', '&')
# through every format and its independent parser (see export_synthetic.c).
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"

A='ns::Box<int, "q\">::get() const'
B='semi;colon "quoted" \back\slash'
C='operator<(a&, b&)'
check "viewers installed" viewers_ready
check "build the trace generator" gcc -std=c11 -D_GNU_SOURCE -I"$INCLPROF_SRC/tests/unit" -I"$INCLPROF_LIBDIR/gen" \
  -I"$INCLPROF_SRC/include/inclprof" -o gen "$INCLPROF_SRC/tests/integration/export_synthetic.c" \
  "$INCLPROF_LIBDIR/libinclprof.a" -lprotobuf-c -ldeflate -lz -lpthread -ldl
mkdir -p inclprof.data
check "write the trace" ./gen inclprof.data/4242.ipb
check_every_format

printf '%s\t600\t1000\n%s\t400\t400\n%s\t100\t100\n' "$A" "$B" "$C" >expected-top.txt
same_lines "pprof flat/cum are the known values" expected-top.txt pprof-elapsed.txt
printf '%s\n%s\n%s\n' "$A" "$B" "$C" >expected-names.txt
awk '$1 == "name" { sub(/^name [0-9]+ [0-9]+ /, ""); print }' engine.txt |
  python3 -c 'import json, sys; [print(json.loads(l)) for l in sys.stdin]' >engine-names.txt
same_lines "trace engine: the names survive JSON escaping" expected-names.txt engine-names.txt
check_eq "trace engine: 3 slices per thread" "4242 1 3 \"main thread\"|4242 2 3 \"recursive\"" \
  "$(awk '$1 == "thread" { print $2, $3, $4, $5, $6 }' engine.txt | sort | sed 's/ *$//' | paste -sd '|')"
printf 'box.hpp:%s\t1000\nodd.c:%s\t400\nop.cc:%s\t100\n' "$A" "$B" "$C" >expected-cg.txt
callgrind_functions callgrind.out.inclprof --show=Elapsed --inclusive=yes | grep -v '^???:thread ' >cg-names.txt
same_lines "callgrind_annotate: names and inclusive costs (recursion once)" expected-cg.txt cg-names.txt
check "folded: ';' in a name becomes ','" grep -qF ";semi,colon \"quoted\" \\back\\slash 400" inclprof.folded
check_eq "folded: the known total" 1100 "$total"
done_testing
