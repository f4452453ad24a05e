#!/bin/sh
# big_trace.sh - a synthetic trace of more than 4 GiB (convert/bench/gen_trace.c,
# STRESS_BIG_EVENTS events, default 1.4 G in 4 threads) read by `inclprof
# report` and `inclprof export --format csv`: both must count exactly the
# events and calls the generator wrote, with peak RSS (/usr/bin/time) below
# STRESS_BIG_RSS_KB (default 65536).  Skipped, with the reason, when the disk
# lacks room for the file; the file is deleted afterwards.
. "$INCLPROF_SRC/tests/lib.sh"
events=${STRESS_BIG_EVENTS:-1400000000} bound=${STRESS_BIG_RSS_KB:-65536}
gen=${GEN_TRACE:-$INCLPROF_SRC/build/gen_trace}
need_kb=$((events / 1024 * 7 / 2 + 1048576)) # about 3.4 bytes per event, and 1 GiB to spare
free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "$free_kb" -lt "$need_kb" ]; then
  echo "skip - big trace: $((free_kb / 1048576)) GiB free in $T_DIR, $((need_kb / 1048576)) GiB needed (set STRESS_BIG_EVENTS lower or free disk)"
  exit 0
fi
start=$(date +%s.%N)
"$gen" big.ipb "$events" 4 >gen.txt
check_eq "generate $events events" 0 "$?"
gen_secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }')
size=$(wc -c <big.ipb)
[ -n "${STRESS_BIG_EVENTS:-}" ] ||
  check "the trace is larger than 4 GiB ($size bytes)" test "$size" -gt 4294967296
wrote_events=$(awk '{ print $2 }' gen.txt) wrote_calls=$(awk '{ print $4 }' gen.txt)
check_eq "the generator wrote every event" "$events" "$wrote_events"
sync # the generator's writeback must not run during the timed reads

# timed TOOL ARGS...: runs inclprof under /usr/bin/time -v; sets wall, rss
timed() {
  /usr/bin/time -v -o time.txt "$INCLPROF" "$@"
  rc=$?
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
                     for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' time.txt)
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' time.txt)
  return $rc
}
timed report big.ipb --top 5 >report.txt 2>&1
check_eq "report exits 0" 0 "$?"
r_wall=$wall r_rss=$rss
read_events=$(sed -n 's/.*events: \([0-9]*\).*/\1/p' report.txt | head -1)
check_eq "report counts every event" "$events" "$read_events"
check "report: no damage" sh -c '! grep -qi damage report.txt'
check "report: peak RSS ${r_rss} kB below $bound kB" test "$r_rss" -lt "$bound"
timed export --format csv -o big.csv big.ipb >/dev/null 2>&1
check_eq "export csv exits 0" 0 "$?"
c_wall=$wall c_rss=$rss
calls=$(awk -F, 'NR > 1 { s += $5 } END { print s + 0 }' big.csv)
check_eq "csv counts every call" "$wrote_calls" "$calls"
check "csv: peak RSS ${c_rss} kB below $bound kB" test "$c_rss" -lt "$bound"
rm -f big.ipb
awk -v e="$events" -v c="$calls" -v b="$size" -v g="$gen_secs" -v rw="$r_wall" -v rr="$r_rss" \
    -v cw="$c_wall" -v cr="$c_rss" 'BEGIN {
  printf "figure: big trace: %.2f GiB, %d events, %d calls (generated in %d s); report %.0f s, %.1f M events/s, peak RSS %.1f MB; export csv %.0f s, %.1f M events/s, peak RSS %.1f MB; events and calls read = written\n",
    b / 1073741824, e, c, g, rw, e / rw / 1e6, rr / 1024, cw, e / cw / 1e6, cr / 1024 }'
done_testing
