#!/bin/sh
# plugin_x87_returns.sh - functions returning values that live in x87
# registers (long double, long double _Complex; with -mfpmath=387 also
# double _Complex and float _Complex in between) build with the plugin's
# x86-64 probes at -O0 and -O2 (GCC refused long double _Complex: "implicitly
# popped registers must be grouped at top of stack"), print under `inclprof
# record` exactly what the plain program prints (the x87 stack stays
# balanced across the exit probe), and every function's calls in the profile
# are the calls the program counted itself.
. "$INCLPROF_SRC/tests/lib.sh"
PP="$INCLPROF_SRC/tests/programs/plugin"
FNS="scale_ld rotate_cld same_cld rotate_cd rotate_cf"
# counts: "name=calls ..." of FNS in inclprof.csv, in the program's own format
counts() {
  awk -F, -v fns="$FNS" 'BEGIN { n = split(fns, f, " ") } { c[$1] = $5 }
    END { for (i = 1; i <= n; i++) printf "%s%s=%s", (i > 1 ? " " : ""), f[i], c[f[i]]; print "" }' inclprof.csv
}
for O in -O0 -O2; do
  for fp in sse 387; do
    gcc "$O" -mfpmath=$fp "$PP/x87_returns.c" -o plain || { fail "$O $fp: build the plain program"; continue; }
    ./plain >plain.out || fail "$O $fp: the plain program fails"
    for form in stub call; do
      what="$O -mfpmath=$fp probe-form=$form"
      rm -rf inclprof.data inclprof.csv
      if ! gcc "$O" -mfpmath=$fp -fplugin="$INCLPROF_PLUGIN" -fplugin-arg-inclprof-probe-form=$form \
        "$PP/x87_returns.c" -o inst 2>build.err; then
        fail "$what: build with the plugin: $(tail -n 1 build.err)"
        continue
      fi
      "$INCLPROF" record ./inst >inst.out 2>record.err || fail "$what: record: $(tail -n 1 record.err)"
      check "$what: the same results as the plain program" cmp plain.out inst.out
      "$INCLPROF" export --format csv -o inclprof.csv 2>/dev/null || fail "$what: export"
      check_eq "$what: every function's calls as the program counted them" "$(tail -n 1 plain.out)" \
        "$(counts)"
    done
  done
done
done_testing
