#!/bin/bash
# startup.sh - `make bench-startup`: what start-up and exit add to a traced
# process, and what `inclprof record` costs by itself.  A trivial program
# (main calls one function: two events) is built plain and with the plugin
# and run plain, with the runtime preloaded (LD_PRELOAD, INCLPROF_OUTPUT)
# and under `inclprof record`; each run's wall time is read by bash around
# the command, runs alternate round-robin, and the figures are the median
# and the fastest of BENCH_STARTUP_RUNS.  With perf, each variant's CPU time
# too (task-clock of its processes, mean of as many runs of `perf stat -r`
# after the wall-time rounds): what the machine's other work inflates less.
# Two blocks:
#   alone - nothing else holds the kevents tracepoint (the script first waits
#           for a recent record's holder to go): each kevents process is its
#           first and last perf user, so it registers and unregisters it;
#   held  - a background `inclprof record -- sleep` holds it, as `record`
#           does for its own program.
# The breakdown is the difference of two medians.  Then a large program:
# 150 units of 100 functions linked -rdynamic (bench/units_program.sh:
# 15 000 dynamic symbols, every function with call sites that never run),
# plain, preloaded and under `record`, BENCH_STARTUP_BIG_RUNS interleaved
# runs: wall time, CPU time, and the exit's CPU time (the process's CPU
# time less what it had used when main returned).  Writes Markdown to OUT_MD.
#   usage: bench/startup.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_STARTUP_RUNS (200), BENCH_STARTUP_BIG_RUNS (20)
set -u
[ $# -eq 3 ] || { echo "usage: bench/startup.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$1 W=$2
mkdir -p "$(dirname "$3")" || exit 1
OUT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 1
RUNS=${BENCH_STARTUP_RUNS:-200}
BIG_RUNS=${BENCH_STARTUP_BIG_RUNS:-20}
SRC_DIR=$(cd "$(dirname "$0")" && pwd)
INCLPROF=$B/inclprof LIB=$B/libinclprof.so
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
say() { echo "bench-startup: $*" >&2; }

printf 'int work(int x) { return 2 * x + 1; }\nint main(void) { return work(0) - 1; }\n' >trivial.c
gcc -O2 trivial.c -o plain && gcc -O2 -fplugin="$B/inclprof.so" trivial.c -o traced || exit 1

# The variants: commands for eval (and for env, under perf stat).
declare -A CMD=(
  [plain]="./plain"
  [loaded]="LD_PRELOAD=$LIB INCLPROF_OUTPUT=$W/pre ./plain"
  [none]="LD_PRELOAD=$LIB INCLPROF_OUTPUT=$W/pre INCLPROF_TRANSITIONS=none ./traced"
  [kevents]="LD_PRELOAD=$LIB INCLPROF_OUTPUT=$W/pre INCLPROF_TRANSITIONS=kevents ./traced"
  [first]="LD_PRELOAD=$LIB INCLPROF_OUTPUT=$W/first INCLPROF_TRANSITIONS=kevents ./traced"
  [record]="$INCLPROF record -o rec --transitions kevents -- ./traced"
  [record_none]="$INCLPROF record -o rec_none --transitions none -- ./traced"
  [true]="/bin/true"
  [record_true]="$INCLPROF record -o rec_true -- /bin/true")
have_perf=no
perf stat -x, -e task-clock -o /dev/null true >/dev/null 2>&1 && have_perf=yes

# rounds BLOCK VARIANT...: RUNS rounds, each running every variant once
# (BLOCK.VARIANT.t: each run's start and end time); then, with perf, each
# variant's CPU time (BLOCK.VARIANT.cpu: perf stat's CSV).
rounds() {
  local block=$1 v t0 t1 i
  shift
  for v in "$@"; do : >"$block.$v.t"; done
  for ((i = 0; i < RUNS; i++)); do
    for v in "$@"; do
      t0=$EPOCHREALTIME
      eval "${CMD[$v]}" >/dev/null 2>&1
      t1=$EPOCHREALTIME
      echo "$t0 $t1" >>"$block.$v.t"
    done
  done
  [ $have_perf = yes ] || return 0
  for v in "$@"; do
    eval "perf stat -r $RUNS -x, -e task-clock -o $block.$v.cpu env ${CMD[$v]}" >/dev/null 2>&1
  done
}
# med BLOCK VARIANT: the median wall time in ms.
med() {
  awk '{ print ($2 - $1) * 1000 }' "$1.$2.t" | sort -n |
    awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# fastest BLOCK VARIANT: the shortest wall time in ms.
fastest() { awk '{ print ($2 - $1) * 1000 }' "$1.$2.t" | sort -n | awk 'NR == 1 { printf "%.2f", $1 }'; }
# cpu BLOCK VARIANT: the mean CPU time in ms ("-" without perf).
cpu() {
  if [ -s "$1.$2.cpu" ]; then awk -F, '$3 == "task-clock" { printf "%.2f", $1 }' "$1.$2.cpu"; else printf -- -; fi
}
sub() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") printf "-"; else printf "%+.2f", a - b }'; }

if ! "$INCLPROF" record -o probe --transitions kevents -- ./traced >/dev/null 2>&1 ||
  ! "$INCLPROF" info probe 2>/dev/null | grep -q 'transitions: *kevents'; then
  kev_why=$("$INCLPROF" info probe 2>/dev/null | sed -n 's/^ *why: //p' | head -1)
  say "kevents unavailable here (${kev_why:-no trace}): its rows are left out"
  kev=no
else
  kev=yes
fi

# The processes of one output directory share the first one's calibration
# (DIR/.calibration-KEY); in first/ a directory stands where that file would
# go, so every process there measures its own, as the first of a directory does.
if [ $kev = yes ]; then
  eval "${CMD[first]}" >/dev/null 2>&1
  for c in first/.calibration-*; do [ -f "$c" ] && rm -f "$c" && mkdir "$c"; done
fi

for ((i = 0; i < 100; i++)); do pgrep -x inclprof-hold >/dev/null || break; sleep 0.1; done
if pgrep -x inclprof-hold >/dev/null; then
  alone_note=" (another record's holder was running: it may have been held)"
else
  alone_note=""
fi
say "block alone: $RUNS rounds"
if [ $kev = yes ]; then rounds alone plain loaded none kevents; else rounds alone plain loaded none; fi

"$INCLPROF" record -o hold -- sleep 100000 >/dev/null 2>&1 &
holder_record=$!
sleep 0.5
say "block held: $RUNS rounds"
if [ $kev = yes ]; then
  rounds held plain kevents first record record_none true record_true
else
  rounds held plain record_none true record_true
fi
# The large program, while the holder runs: wall ms, CPU ms and the exit's
# CPU ms of each run (big.VARIANT: one line per run).
say "large program: $BIG_RUNS rounds"
sh "$SRC_DIR/units_program.sh" big 150 100 0 &&
  (cd big && for f in u*.c main.c; do gcc -O2 -c -fplugin="$B/inclprof.so" "$f" -o "$f.o" || exit 1; done) &&
  gcc -rdynamic big/*.o -o big_prog || exit 1
cat >big_run.py <<'PY'
import os, re, sys, time
r, w = os.pipe()
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    os.dup2(w, 1)
    os.execvpe(sys.argv[1], sys.argv[1:], os.environ)
os.close(w)
out = b""
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    out += chunk
_, status, ru = os.wait4(pid, 0)
wall = (time.monotonic() - t0) * 1000
cpu = (ru.ru_utime + ru.ru_stime) * 1000
m = re.search(rb"main_cpu_us=(\d+)", out)
main = int(m.group(1)) / 1000 if m else float("nan")
print("%.2f %.2f %.2f" % (wall, cpu, cpu - main))
PY
declare -A BIG=(
  [plain]="./big_prog"
  [loaded]="env LD_PRELOAD=$LIB INCLPROF_OUTPUT=$W/big_pre INCLPROF_TRANSITIONS=kevents ./big_prog"
  [record]="$INCLPROF record -o big_rec --transitions kevents -- ./big_prog")
for v in plain loaded record; do : >"big.$v"; done
for ((i = 0; i < BIG_RUNS; i++)); do
  for v in plain loaded record; do
    python3 big_run.py ${BIG[$v]} 2>/dev/null | tail -n1 >>"big.$v"
  done
done
# big_med VARIANT COLUMN: the median of that column (1 wall, 2 CPU, 3 exit CPU)
big_med() {
  awk -v c="$2" '{ print $c }' "big.$1" | sort -n |
    awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

sleeper=$(pgrep -P "$holder_record" -x sleep)
[ -n "$sleeper" ] && kill "$sleeper"
wait "$holder_record" 2>/dev/null

# row LABEL BLOCK VARIANT [BASE]: a table row, with the difference to BASE's medians.
row() {
  local m f c
  m=$(med "$2" "$3") f=$(fastest "$2" "$3") c=$(cpu "$2" "$3")
  if [ $# -eq 4 ]; then
    echo "| $1 | $2 | $m | $(sub "$m" "$(med "$2" "$4")") | $f | $(sub "$f" "$(fastest "$2" "$4")") | $c | $(sub "$c" "$(cpu "$2" "$4")") |"
  else
    echo "| $1 | $2 | $m | | $f | | $c | |"
  fi
}
# over BLOCK VARIANT BASE: VARIANT's median less BASE's.
over() { sub "$(med "$1" "$2")" "$(med "$1" "$3")"; }
{
  echo "## Start-up and exit (\`make bench-startup\`)"
  echo
  echo "A trivial program (\`main\` calls one function: two events): wall time of the"
  echo "whole process from bash, median and fastest of $RUNS interleaved runs, and its"
  echo "processes' CPU time (user + system, mean of as many runs), ms. *alone*: nothing else held the kevents"
  echo "tracepoint, so each kevents process registered and unregistered it$alone_note;"
  echo "*held*: a background \`inclprof record\` held it, as \`record\` does for its"
  echo "own program. Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| run | block | wall ms | over plain | fastest ms | over plain | CPU ms | over plain |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  row "plain" alone plain
  row "preloaded, the runtime not started (program built without the plugin)" alone loaded plain
  row "preloaded, \`INCLPROF_TRANSITIONS=none\`" alone none plain
  [ $kev = yes ] && row "preloaded, kevents, the tracepoint's only user" alone kevents plain
  row "plain" held plain
  [ $kev = yes ] && row "preloaded, kevents (a later process of its output directory)" held kevents plain
  [ $kev = yes ] && row "preloaded, kevents, measuring its own calibration (the first of a directory)" held first plain
  [ $kev = yes ] && row "\`inclprof record\` (kevents)" held record plain
  row "\`inclprof record --transitions none\`" held record_none plain
  row "\`/bin/true\`" held true
  row "\`inclprof record -- /bin/true\` (the runtime never starts)" held record_true true
  echo
  echo "| part (difference of wall medians) | ms |"
  echo "|---|---:|"
  echo "| loading the runtime and its libraries | $(over alone loaded plain) |"
  echo "| the runtime's start-up and exit without kevents (trace file, threads, flush; the calibration read) | $(over alone none loaded) |"
  if [ $kev = yes ]; then
    echo "| kevents, the tracepoint held (the trial ring, the thread's ring and events) | $(sub "$(over held kevents plain)" "$(over alone none plain)") |"
    echo "| the calibration: the first process of a directory measures it, later ones read it (first − later, held) | $(over held first kevents) |"
    echo "| the kernel's registration and release of the tracepoint (its first and last user) | $(sub "$(over alone kevents plain)" "$(over held kevents plain)") |"
    echo "| \`record\`'s own cost with a traced program (record − preloaded, held) | $(over held record kevents) |"
  fi
  echo "| \`record\`'s own cost, the runtime never starting (record -- /bin/true − /bin/true) | $(over held record_true true) |"
  echo
  echo "A program of 150 units of 100 functions linked \`-rdynamic\` (15 000 dynamic"
  echo "symbols; every function has a call site into the next unit and one into libc"
  echo "that never run; \`bench/units_program.sh\`), median of $BIG_RUNS interleaved runs,"
  echo "ms; the exit's CPU time is the process's less what it had used when \`main\`"
  echo "returned (the runtime's destructors, the final flush, the Trailer); under"
  echo "\`record\` it also holds \`record\`'s own CPU time (its start, the holder, the summary)."
  echo
  echo "| run | wall ms | CPU ms | exit CPU ms | exit over plain |"
  echo "|---|---:|---:|---:|---:|"
  for v in plain loaded record; do
    case $v in
    plain) label=plain ;;
    loaded) label="preloaded, kevents" ;;
    record) label="\`inclprof record\` (kevents)" ;;
    esac
    echo "| $label | $(big_med $v 1) | $(big_med $v 2) | $(big_med $v 3) | $(sub "$(big_med $v 3)" "$(big_med plain 3)") |"
  done
} >"$OUT"
rm -rf pre first rec rec.old rec_none rec_none.old rec_true hold probe big big_pre big_rec big_rec.old
cat "$OUT"
