# viewers.sh - sourced by the export integration tests (after tests/lib.sh):
# runs exports through independent parsers, installed by setup.sh.
#   viewers_ready                 0 when every parser is usable (installs them)
#   pprof_top FILE [ARGS...]      go tool pprof -top, offline, exact nanoseconds:
#                                 prints "NAME<TAB>FLAT<TAB>CUM" per function
#   pprof_raw FILE                go tool pprof -raw (fails if pprof rejects the file)
#   pprof_go ARGS...              go tool pprof -symbolize=none ARGS
#   trace_engine_load FILE        the DevTools trace engine's view (trace-engine-load.mjs)
#   callgrind_annotate_clean FILE [ARGS...]
#                                 callgrind_annotate's output; fails on any warning
#   callgrind_functions FILE --show=EVENT [--inclusive=yes]
#                                 "FILE:FUNCTION<TAB>COST" per function
#   csv_rows FILE COLUMN...       named columns of a CSV export, tab-separated
#   same_lines DESC FILE1 FILE2   assertion: the same lines in any order
VIEWERS_DIR=""
viewers_ready() {
  [ -n "$VIEWERS_DIR" ] && return 0
  VIEWERS_DIR=$(sh "$INCLPROF_SRC/tests/viewers/setup.sh") || { VIEWERS_DIR=""; return 1; }
}

pprof_go() { HOME=$T_DIR PPROF_TMPDIR=$T_DIR go tool pprof -symbolize=none "$@"; }

pprof_raw() { pprof_go -raw "$1"; }

# The table rows are "flat flat% sum% cum cum% name" with -unit=ns: "123ns".
pprof_top() {
  f=$1; shift
  pprof_go -top -unit=ns -nodecount=100000 -nodefraction=0 -edgefraction=0 "$@" "$f" |
    awk '/^ *flat  *flat%/ { table = 1; next }
         table && NF >= 6 { flat = $1; cum = $4; sub(/ns$/, "", flat); sub(/ns$/, "", cum);
                            name = $6; for (i = 7; i <= NF; i++) name = name " " $i;
                            printf "%s\t%s\t%s\n", name, flat, cum }'
}

trace_engine_load() { node "$VIEWERS_DIR/trace-engine-load.mjs" "$1"; }

callgrind_annotate_clean() {
  f=$1; shift
  callgrind_annotate --auto=no "$@" "$f" >"$T_DIR/cga.out" 2>"$T_DIR/cga.err" || { cat "$T_DIR/cga.err" >&2; return 1; }
  if grep -E 'WARNING|malformed|Use of uninit' "$T_DIR/cga.out" "$T_DIR/cga.err" >&2; then return 1; fi
  cat "$T_DIR/cga.out"
}

# Function rows after the "file:function" header, one event shown:
# "COST (PCT%)  FILE:FN [OBJECT]" ("0  FILE:FN [OBJECT]" for nothing).
callgrind_functions() {
  f=$1; shift
  callgrind_annotate_clean "$f" --threshold=100 "$@" | awk '
    /file:function/ { rows = 1; next }
    !rows || /^-/ { next }
    /^ *$/ { if (seen) exit; next }
    { seen = 1; cost = $1; gsub(/,/, "", cost); line = $0
      sub(/^ *[0-9,]+ +(\( *[0-9.]+%\) +)?/, "", line); sub(/ \[[^ ]*\]$/, "", line)
      printf "%s\t%s\n", line, cost }'
}

# csv_rows FILE COLUMN... - the named columns of an inclprof CSV export,
# tab-separated, one line per row (RFC 4180 parsing by Python's csv module).
csv_rows() {
  python3 - "$@" <<'PY'
import csv, sys
with open(sys.argv[1], newline='') as f:
    rows = csv.DictReader(f)
    for row in rows:
        print('\t'.join(row[c] for c in sys.argv[2:]))
PY
}

# same_lines DESCRIPTION FILE1 FILE2 - passes when both hold the same lines (any order).
same_lines() {
  sort "$2" >"$2.sorted"; sort "$3" >"$3.sorted"
  if cmp -s "$2.sorted" "$3.sorted"; then ok "$1 ($(wc -l <"$2.sorted") lines)"
  else fail "$1: $(diff "$2.sorted" "$3.sorted" | head -6 | tr '\n' ' ')"; fi
}
