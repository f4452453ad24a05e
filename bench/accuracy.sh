#!/bin/bash
# accuracy.sh - `make bench-accuracy`: how far Application and Elapsed values
# are from the truth, per thread kind (bench/accuracy.c), by the twin method.
# Each run, round-robin: the uninstrumented twin (the same user work without
# the kernel work: the truth for Application time and for the per-call time of
# the small functions), the uninstrumented real program (the truth for Elapsed
# time), and the plugin-instrumented real program under `inclprof record`,
# exported as CSV.  Writes one Markdown table: per kind the median over the
# runs of each ratio and its spread (lowest-highest).
#   usage: bench/accuracy.sh BUILD_DIR WORK_DIR OUT_MD
#   env:   BENCH_RUNS (5), BENCH_TRANSITIONS (auto)
set -u
[ $# -eq 3 ] || { echo "usage: bench/accuracy.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$1 W=$2
OUT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 1
SRC=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${BENCH_RUNS:-5} MODE=${BENCH_TRANSITIONS:-auto}
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
say() { echo "bench-accuracy: $*" >&2; }

gcc -O2 -g -o plain "$SRC/bench/accuracy.c" -lpthread || exit 1
gcc -O2 -g -fplugin="$B/inclprof.so" -o ip "$SRC/bench/accuracy.c" -lpthread || exit 1

for r in $(seq 1 "$RUNS"); do
  say "run $r of $RUNS"
  ./plain twin > "twin.$r" || { say "the twin failed (run $r)"; exit 1; }
  ./plain real > "real.$r" || { say "the uninstrumented program failed (run $r)"; exit 1; }
  rm -rf "ip.$r.data"
  "$B/inclprof" record --transitions "$MODE" -o "ip.$r.data" -- ./ip real > "ip.$r" 2> "ip.$r.log" ||
    { say "inclprof record failed (run $r): $(tail -n1 "ip.$r.log")"; exit 1; }
  "$B/inclprof" export --format csv -o "ip.$r.csv" "ip.$r.data" > /dev/null 2>&1 ||
    { say "inclprof export failed (run $r)"; exit 1; }
  [ "$r" = 1 ] && "$B/inclprof" info "ip.$r.data" > info.txt 2>&1
  rm -rf "ip.$r.data"
done

# One line per run and kind: kind body_ns app_ratio elapsed_ratio percall_ratio
for r in $(seq 1 "$RUNS"); do
  awk -F'[ ,]' -v run="$r" '
    FILENAME ~ /^twin/ { tcalls[$1] = $3; tcpu[$1] = $4; tloop[$1] = $6; next }
    FILENAME ~ /^real/ { rwall[$1] = $5; next }
    FNR > 1 {
      n = $1
      if (n ~ /^acc_/)   { k = substr(n, 5);   el[k] = $6; app[k] = $8 }
      if (n ~ /^small_/) { k = substr(n, 7);   calls[k] = $5; aex[k] = $9 }
    }
    END {
      for (k in tcpu) {
        body = (tcpu[k] - tloop[k]) / tcalls[k]
        printf "%s %.1f %.4f %.4f %.4f\n", k, body, app[k] / tcpu[k], el[k] / rwall[k],
               (calls[k] ? aex[k] / calls[k] : 0) / body
      }
    }' "twin.$r" "real.$r" "ip.$r.csv"
done > ratios.txt

# median (lowest-highest) of column $2 of ratios.txt for kind $1
stat() {
  awk -v k="$1" -v c="$2" '$1 == k { print $c }' ratios.txt | sort -g |
    awk '{ v[NR] = $1 } END {
      m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      if (c == 2) printf "%.0f", m; else printf "**%.3f** (%.3f–%.3f)", m, v[1], v[NR] }' c="$2"
}

{
  echo "#### Accuracy against the truth (twin method, \`bench/accuracy.c\`)"
  echo
  echo "Each kind is one root function calling its own small function in a loop. *App* ="
  echo "Application Inclusive of the root ÷ the CPU time (\`CLOCK_THREAD_CPUTIME_ID\`) of the same"
  echo "user work in an uninstrumented twin without system calls, sleeps, faults or blocking;"
  echo "*Elapsed* = Elapsed Inclusive ÷ the root's wall-clock time in an uninstrumented run of the"
  echo "real program; *per call* = the small function's Application Exclusive per call ÷ its"
  echo "per-call CPU time in the twin (loop overhead removed). Median of $RUNS runs"
  echo "(lowest–highest); the bound is 0.95–1.05. Transition mode: \`$(sed -n 's/^transitions: *//p' info.txt | head -n1)\`."
  echo
  echo "| kind | what the thread does | body ns | App ÷ truth | Elapsed ÷ truth | per call ÷ truth |"
  echo "|---|---|---:|---:|---:|---:|"
  while read -r k what; do
    echo "| $k | $what | $(stat "$k" 2) | $(stat "$k" 3) | $(stat "$k" 4) | $(stat "$k" 5) |"
  done <<'EOF'
compute50 small calls, nothing else
compute200 small calls, nothing else
compute1000 small calls, nothing else
syscall100 getppid() after every call
syscall1000 getppid() after every call
syscall10000 getppid() after every call
sleep 2000 calls, then a 2 ms nanosleep, 20 times
fault a store into a fresh page before every call
lock_waiter 20 calls, then waits on a condition variable for another thread's 200 calls
crowd 2 × CPUs + 1 threads of calls at once, summed
EOF
  echo
} > "$OUT"
cat "$OUT"
