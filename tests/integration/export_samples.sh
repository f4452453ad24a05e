#!/bin/sh
# export_samples.sh - the sampling values (Inclusive/Exclusive Samples) in the
# exports of a sampled run: pprof's samples flat/cum, callgrind's Samples
# self/inclusive and the folded samples equal the CSV's.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"

cat >spin.c <<'EOF2'
static volatile long sink;
static void hot(void) { for (long i = 0; i < 40000000; i++) sink += i; }
static void cold(void) { for (long i = 0; i < 15000000; i++) sink += i; }
int main(void) { hot(); cold(); return 0; }
EOF2
check "viewers installed" viewers_ready
check "compile with the plugin" cc_plugin spin spin.c -O0
check "run under inclprof record --sample-hz 1000" "$INCLPROF" record --sample-hz 1000 ./spin
for f in csv pprof callgrind; do check "export --format $f" "$INCLPROF" export -f "$f"; done
check "export --format folded --value samples" "$INCLPROF" export -f folded --value samples
csv_rows inclprof.csv function exclusive_samples inclusive_samples | grep -v '	0	0$' >csv-samples.txt
samples=$(awk -F '\t' '$1 == "main" { print $3 }' csv-samples.txt)
check "the run was sampled (main: $samples inclusive samples)" test "${samples:-0}" -gt 0
pprof_top inclprof.pb.gz -sample_index=samples | sed 's/ns\t/\t/g' >pprof-samples.txt
same_lines "pprof flat/cum (samples) = CSV Exclusive/Inclusive Samples" csv-samples.txt pprof-samples.txt
check_eq "pprof's default is still elapsed" "elapsed/nanoseconds[dflt]" \
  "$(pprof_raw inclprof.pb.gz | grep -o 'elapsed/nanoseconds\[dflt\]')"
callgrind_functions callgrind.out.inclprof --show=Samples | grep -v '^???:thread ' | sed 's/^[^:]*://' |
  grep -v '	0$' >cg-self.txt
cut -f1,2 csv-samples.txt | grep -v '	0$' >csv-self.txt
same_lines "callgrind Samples self = CSV Exclusive Samples" csv-self.txt cg-self.txt
callgrind_functions callgrind.out.inclprof --show=Samples --inclusive=yes | grep -v '^???:thread ' |
  sed 's/^[^:]*://' | grep -v '	0$' >cg-incl.txt
cut -f1,3 csv-samples.txt >csv-incl.txt
same_lines "callgrind Samples inclusive = CSV Inclusive Samples" csv-incl.txt cg-incl.txt
check_eq "folded --value samples: the exclusive samples sum" "$(cut -f2 csv-samples.txt | awk '{ s += $1 } END { print s }')" \
  "$(grep -v '^thread [0-9]* ([^)]*) [0-9]*$' inclprof.folded | awk '{ s += $NF } END { print s }')"
done_testing
