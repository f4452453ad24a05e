#!/bin/sh
# soak.sh - the soak (tests/stress/soak.c): STRESS_SOAK_SECONDS (default 600)
# of steady recording by 4 worker threads while recording is paused and
# resumed every 50 ms and a signal handler runs 1000 times a second.  The
# process's VmRSS is sampled every 5 s from /proc/PID/status: it must stay
# below STRESS_SOAK_RSS_KB (default 65536) and the last third's maximum within
# 10 % of the first third's.  The trace must read cleanly, and the calls
# counted in it must equal the calls the program made while recording was on.
. "$INCLPROF_SRC/tests/lib.sh"
secs=${STRESS_SOAK_SECONDS:-600} bound=${STRESS_SOAK_RSS_KB:-65536}
check "compile the soak with the plugin" cc_plugin soak -std=c11 -O2 -g -pthread \
  -I"$INCLPROF_SRC/runtime" "$INCLPROF_SRC/tests/stress/soak.c"
"$INCLPROF" record -o out -- ./soak "$secs" 4 . >record.txt 2>&1 &
rec=$!
while [ ! -s pid ] && kill -0 "$rec" 2>/dev/null; do sleep 0.1; done
pid=$(cat pid 2>/dev/null)
: >rss.txt
while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; do
  awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null >>rss.txt
  sleep 5
done
wait "$rec"
check_eq "the soak ran to the end" 0 "$?"
"$INCLPROF" info out >info.txt 2>&1
check_eq "inclprof info reads the trace" 0 "$?"
check "the trace ends with a clean trailer" grep -q '^trailer: *clean shutdown, exit reason: exit' info.txt
check "no damage" grep -q '^damage: *none' info.txt
check "no batch lost" grep -q ' 0 batches lost$' info.txt
check "no event dropped" grep -q ', 0 dropped$' info.txt
"$INCLPROF" export --format csv -o calls.csv out 2>/dev/null
check_eq "export csv" 0 "$?"
grep -v '^#' counts | sort >made.txt
awk -F, 'NR == FNR { split($0, w, " "); want[w[1]] = 1; next }
         FNR > 1 && ($1 in want) { s[$1] += $5 }
         END { for (f in want) print f, s[f] + 0 }' made.txt calls.csv | sort >counted.txt
check "calls counted = calls made while recording was on, per function" cmp -s made.txt counted.txt
[ "$T_FAILS" -eq 0 ] || { echo "made:"; cat made.txt; echo "counted:"; cat counted.txt; }
n=$(wc -l <rss.txt)
check "RSS sampled at least 3 times" test "$n" -ge 3
sort -n rss.txt >rss_sorted.txt
min=$(head -1 rss_sorted.txt) max=$(tail -1 rss_sorted.txt)
median=$(sed -n "$(((n + 1) / 2))p" rss_sorted.txt)
third=$((n / 3))
first=$(head -n "$third" rss.txt | sort -n | tail -1)
last=$(tail -n "$third" rss.txt | sort -n | tail -1)
check "peak RSS ${max} kB below ${bound} kB" test "${max:-0}" -lt "$bound"
check "RSS flat: last third's max ${last} kB within 10 % of the first third's ${first} kB" \
  awk -v a="${first:-0}" -v b="${last:-0}" 'BEGIN { exit !(a > 0 && b <= a * 1.10) }'
events=$(awk '/^events:/ { print $2 }' info.txt)
bytes=$(du -b out | cut -f1)
work=$(awk '$1 == "soak_work" { print $2 }' made.txt)
sig=$(awk '$1 == "soak_on_signal" { print $2 }' made.txt)
toggles=$(sed -n 's/.*toggles \([0-9]*\).*/\1/p' counts)
echo "figure: soak: ${secs} s, 4 workers + control + sender, $toggles pause/resume toggles, $sig signal handler calls recorded, $events events in $((bytes / 1048576)) MiB; calls made = calls counted (soak_work $work); VmRSS min/median/max $min/$median/$max kB over $n samples (first third max $first, last third max $last)"
done_testing
