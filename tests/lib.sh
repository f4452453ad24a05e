# lib.sh - helpers for the shell integration tests (sourced, POSIX sh).
# Environment (set by tests/run-integration.sh): INCLPROF (the command),
# INCLPROF_PLUGIN (the GCC plugin), INCLPROF_LIBDIR (dir of libinclprof.so/.a),
# INCLPROF_SRC (source tree).  Each test works in its own temporary directory,
# removed at its end; with INCLPROF_KEEP_FAILED=DIR, a test with a failure
# leaves it in DIR (its traces, for a failure that does not come back).
set -u
: "${INCLPROF_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${INCLPROF:=$INCLPROF_SRC/build/inclprof}"
: "${INCLPROF_PLUGIN:=$INCLPROF_SRC/build/inclprof.so}"
: "${INCLPROF_LIBDIR:=$INCLPROF_SRC/build}"
T_FAILS=0
T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/inclprof-test.XXXXXX")
t_end() {
  if [ "$T_FAILS" -gt 0 ] && [ -n "${INCLPROF_KEEP_FAILED:-}" ] && mkdir -p "$INCLPROF_KEEP_FAILED" &&
    mv "$T_DIR" "$INCLPROF_KEEP_FAILED/$(basename "$0" .sh).$$" 2>/dev/null; then
    echo "# kept in $INCLPROF_KEEP_FAILED/$(basename "$0" .sh).$$"
  else
    rm -rf "$T_DIR"
  fi
}
trap t_end EXIT
cd "$T_DIR" || exit 1

ok()   { printf 'ok - %s\n' "$*"; }
fail() { printf 'FAIL - %s\n' "$*"; T_FAILS=$((T_FAILS + 1)); }
# check DESCRIPTION COMMAND...: pass when COMMAND succeeds; a failure shows
# the last line COMMAND wrote to stderr
check() {
  d=$1; shift
  if "$@" >/dev/null 2>"$T_DIR/.check-stderr"; then ok "$d"
  else fail "$d$(sed '/^[[:space:]]*$/d' "$T_DIR/.check-stderr" | tail -n1 | cut -c1-300 | sed 's/^/: /')"; fi
}
# need TOOL...: stop the test (one failure naming the tool) unless every TOOL is installed
need() {
  for t in "$@"; do
    command -v "$t" >/dev/null 2>&1 && continue
    fail "$t is not installed: run scripts/deps.sh test as root (make check does), then rerun"
    exit 1
  done
}
# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: expected '$2', got '$3'"; fi; }
# check_near DESCRIPTION EXPECTED ACTUAL TOLERANCE (numbers, absolute tolerance)
check_near() {
  if awk -v e="$2" -v a="$3" -v t="$4" 'BEGIN{d=e-a; if(d<0)d=-d; exit !(d<=t)}'; then ok "$1 ($3 ~ $2)";
  else fail "$1: expected $2 +- $4, got $3"; fi
}
# cc_plugin OUT SRC... [flags]: compile and link with the plugin and the runtime
# (instrumented code references the runtime weakly: keep it despite --as-needed)
cc_plugin() { out=$1; shift; gcc -fplugin="$INCLPROF_PLUGIN" "$@" -o "$out" -L"$INCLPROF_LIBDIR" -Wl,-rpath,"$INCLPROF_LIBDIR" -Wl,--push-state,--no-as-needed -linclprof -Wl,--pop-state; }
done_testing() { [ "$T_FAILS" -eq 0 ]; }
