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
#   csv_valid FILE                strict RFC 4180 structure
#   same_lines DESC FILE1 FILE2   assertion: the same lines in any order
#   check_every_format            all formats of ./inclprof.data vs the CSV (assertions)
#   check_wait_columns            pprof's wait sample types and the Chrome slices'
#                                 wait args vs the CSV (after check_every_format)
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
                            name = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+  /, "", name);
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

# csv_valid FILE - RFC 4180 structure, checked by Python's csv module in
# strict mode: quoting well formed, every row as many fields as the header.
csv_valid() {
  python3 - "$1" <<'PY'
import csv, sys
with open(sys.argv[1], newline='') as f:
    rows = list(csv.reader(f, strict=True))
width = len(rows[0])
bad = [i + 1 for i, r in enumerate(rows) if len(r) != width]
if bad or len(rows) < 2:
    sys.exit(f"{sys.argv[1]}: rows {bad[:5]} do not have {width} fields" if bad else "no data rows")
PY
}

# same_lines DESCRIPTION FILE1 FILE2 - passes when both hold the same lines (any order).
same_lines() {
  sort "$2" >"$2.sorted"; sort "$3" >"$3.sorted"
  if cmp -s "$2.sorted" "$3.sorted"; then ok "$1 ($(wc -l <"$2.sorted") lines)"
  else fail "$1: $(diff "$2.sorted" "$3.sorted" | head -6 | tr '\n' ' ')"; fi
}

# check_every_format - exports ./inclprof.data in every format and checks
# each through its parser against the CSV export (assertions of lib.sh).
# Leaves inclprof.csv, by-thread.csv, engine.txt, inclprof.folded, ... and
# $total (the session's Elapsed Inclusive total) for further checks.
check_every_format() {
  for f in csv pprof chrome callgrind folded; do
    check "export --format $f" "$INCLPROF" export --format "$f"
  done
  "$INCLPROF" export -f csv --by thread -o by-thread.csv 2>/dev/null
  "$INCLPROF" export -f csv --by process -o by-process.csv 2>/dev/null
  "$INCLPROF" export -f pprof --merge-threads -o merged.pb.gz 2>/dev/null
  for f in inclprof.csv by-thread.csv by-process.csv; do
    check "$f: strict RFC 4180, same width on every row" csv_valid "$f"
  done
  total=$(csv_rows by-process.csv elapsed_inclusive_ns | awk '{ s += $1 } END { print s + 0 }')
  check "the program made calls" test "$total" -gt 0

  # pprof: flat = Elapsed Exclusive, cum = Elapsed Inclusive, per function.
  csv_rows inclprof.csv function elapsed_exclusive_ns elapsed_inclusive_ns | grep -v "	0$" >csv-elapsed.txt
  csv_rows inclprof.csv function application_exclusive_ns | grep -v '	0$' >csv-app.txt
  check "go tool pprof -raw accepts the profile" pprof_raw inclprof.pb.gz
  pprof_top inclprof.pb.gz >pprof-elapsed.txt
  same_lines "pprof flat/cum = CSV Elapsed Exclusive/Inclusive" csv-elapsed.txt pprof-elapsed.txt
  pprof_top inclprof.pb.gz -sample_index=application | cut -f1,2 | grep -v '	0$' >pprof-app.txt
  same_lines "pprof flat (application) = CSV Application Exclusive" csv-app.txt pprof-app.txt
  csv_rows inclprof.csv function calls | grep -v '	0$' >csv-calls.txt
  pprof_top inclprof.pb.gz -sample_index=calls | cut -f1,2 | grep -v '	0$' >pprof-calls.txt
  same_lines "pprof flat (calls) = CSV calls" csv-calls.txt pprof-calls.txt
  pprof_top merged.pb.gz >pprof-merged.txt
  same_lines "pprof --merge-threads: the same flat/cum" csv-elapsed.txt pprof-merged.txt
  check_eq "pprof labels every sample with its thread" "$(csv_rows by-thread.csv tid | wc -l)" \
    "$(pprof_go -raw inclprof.pb.gz | grep -o 'tid:\[[0-9]*\]' | sort -u | wc -l)"

  # Chrome trace: one slice per call on every thread, no engine errors.
  trace_engine_load inclprof.trace.json >engine.txt
  check_eq "trace engine: no errors" "0" "$(awk '/^threads/ { print $6 }' engine.txt)"
  csv_rows by-thread.csv tid calls >calls-by-thread.txt
  awk '$1 == "thread" { print $3 "\t" $4 }' engine.txt >slices-by-thread.txt
  same_lines "trace engine: slices per thread = calls recorded" calls-by-thread.txt slices-by-thread.txt

  # callgrind: self = Exclusive, inclusive = Inclusive, totals = ours.
  check "callgrind_annotate reads it without warnings" callgrind_annotate_clean callgrind.out.inclprof
  callgrind_functions callgrind.out.inclprof --show=Elapsed | grep -v '	0$' | grep -v '^???:thread ' |
    sed 's/^[^:]*://' | sort >cg-self.txt
  cut -f1,2 csv-elapsed.txt | grep -v '	0$' >csv-self.txt
  same_lines "callgrind self = CSV Elapsed Exclusive" csv-self.txt cg-self.txt
  callgrind_functions callgrind.out.inclprof --show=Elapsed --inclusive=yes | grep -v '^???:thread ' |
    sed 's/^[^:]*://' >cg-incl.txt
  cut -f1,3 csv-elapsed.txt >csv-incl.txt
  same_lines "callgrind inclusive = CSV Elapsed Inclusive" csv-incl.txt cg-incl.txt
  check_eq "callgrind_annotate program total = session total" "$total" \
    "$(callgrind_annotate_clean callgrind.out.inclprof --show=Elapsed | awk '/PROGRAM TOTALS/ { gsub(/,/, "", $1); print $1 }')"

  # folded: every line is "stack value" and the values sum to the total.
  check_eq "folded: every line parses" 0 "$(grep -cvE '^[^ ].* [0-9]+$' inclprof.folded)"
  check_eq "folded: values sum to the total" "$total" "$(awk '{ s += $NF } END { print s }' inclprof.folded)"
}

# check_wait_columns - when the profile has a wait breakdown (kevents): each
# wait sample type of the pprof file gives the CSV's exclusive column as flat
# (go tool pprof -sample_index), and the Chrome slices' wait args, summed per
# function by the trace engine, give its inclusive column (every call's
# inclusive value; the functions of these tests do not recurse).
check_wait_columns() {
  if ! pprof_go -raw inclprof.pb.gz | grep -q 'offcpu_blocked/nanoseconds'; then
    ok "no wait breakdown in this profile (transition mode not kevents) # SKIP"
    return
  fi
  for c in offcpu_preempted offcpu_blocked syscall page_fault page_faults; do
    case $c in page_faults) col=page_faults_exclusive ;; *) col=${c}_exclusive_ns ;; esac
    csv_rows inclprof.csv function "$col" | grep -v '	0$' >"csv-$c.txt"
    pprof_top inclprof.pb.gz -sample_index="$c" | cut -f1,2 | grep -v '	0$' >"pprof-$c.txt"
    same_lines "pprof flat ($c) = CSV $col" "csv-$c.txt" "pprof-$c.txt"
  done
  for c in offcpu_blocked syscall page_faults; do
    case $c in page_faults) col=page_faults_inclusive arg=page_faults scale=1 ;;
      *) col=${c}_inclusive_ns arg=${c}_us scale=1000 ;; esac
    csv_rows inclprof.csv function "$col" | grep -v '	0$' >"csv-incl-$c.txt"
    awk -v a="$arg" -v k="$scale" '$1 == "args" && $(NF - 1) == a {
        name = $0; sub(/^args "/, "", name); sub(/" [^ ]+ [^ ]+$/, "", name)
        v = sprintf("%.0f", $NF * k); if (v != 0) printf "%s\t%s\n", name, v }' engine.txt >"chrome-$c.txt"
    same_lines "Chrome slices' $arg summed per function = CSV $col" "csv-incl-$c.txt" "chrome-$c.txt"
  done
}
