# common.sh - helpers for the plugin integration tests (sourced after
# tests/lib.sh): build the logging runtime (logrt.c), compile with the plugin,
# and check logs for balance.
PP="$INCLPROF_SRC/tests/programs/plugin"
gcc -shared -fPIC -I"$INCLPROF_SRC/include/inclprof" -o liblogrt.so "$PP/logrt.c" || { echo "FAIL - cannot build logrt"; exit 1; }

# Instrumented code refers to the runtime only weakly, so the runtime must be
# linked with --no-as-needed (Debian's GCC passes --as-needed by default).
LOGRT_LINK="-L$T_DIR -Wl,--push-state,--no-as-needed -llogrt -Wl,--pop-state -Wl,-rpath,$T_DIR"
# pcc OUT SRC... [flags]: compile with the plugin, link the logging runtime
# shellcheck disable=SC2086
pcc() { out=$1; shift; gcc -fplugin="$INCLPROF_PLUGIN" "$@" -o "$out" $LOGRT_LINK; }
# pcxx OUT SRC... [flags]: the same for C++
# shellcheck disable=SC2086
pcxx() { out=$1; shift; g++ -fplugin="$INCLPROF_PLUGIN" "$@" -o "$out" $LOGRT_LINK; }
# INCLPROF_FN_STUB_PROBES: in every instrumented function's flags on x86-64,
# where the probes are stubs (plugin_unwind.sh)
STUB=0; [ "$(uname -m)" = x86_64 ] && STUB=16
# run LOG PROG [ARGS]: run PROG with its probe log in LOG
run() { log=$1; shift; rm -f "$log"; LOGRT_FILE="$log" "$@"; }

# balanced LOG: every "X f" closes the innermost open "E f", nothing stays
# open (per thread when lines start with a thread id).
balanced() {
  awk '{ if ($1 ~ /^[0-9]+$/) { t = $1; k = $2; n = $3 } else { t = 0; k = $1; n = $2 }
         if (k == "E") st[t, ++d[t]] = n
         else if (k == "X") { if (d[t] < 1 || st[t, d[t]] != n) { print "unbalanced at line " NR ": " $0; bad = 1; exit 1 } d[t]-- } }
       END { if (bad) exit 1; for (t in d) if (d[t] != 0) { print "thread " t ": " d[t] " frames open"; exit 1 } }' "$1"
}
# count KIND NAME LOG: how many "KIND NAME" lines
count() { grep -c "^$1 $2\$" "$3"; }
