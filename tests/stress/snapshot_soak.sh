#!/bin/sh
# snapshot_soak.sh - record --snapshot-if on a server-like program running
# for about STRESS_SNAPSHOT_SECONDS (default 600) on a quiet machine:
# slow_requests.c handles 30 000 requests per second of the run (about
# 30 us of work each; a second thread works throughout), and one request in
# every REQUESTS/100 calls slow_part(), whose sleep is 6 ms plus 0.5 ms for
# each slow call before it (6 to 55.5 ms).  Recorded with a 2 MB ring and
# --snapshot-if 'slow_part>5ms': exactly 100 snapshots, the k-th holding the
# k-th slow call, its time between the sleep asked for (a sleep is never
# shorter) and the program's own measure of the request around it, each
# window the call and 1 ms on each side; and bounded disk: the directory is
# sampled every 5 s, the ring's files (the live one and the one before)
# never exceed twice the ring, and the last third's largest sample is within
# 10 % of the first third's.
. "$INCLPROF_SRC/tests/lib.sh"
secs=${STRESS_SNAPSHOT_SECONDS:-600}
requests=$((secs * 30000)) every=$((secs * 300))
check "compile slow_requests.c with the plugin" cc_plugin slow_requests -O2 -g -pthread \
  "$INCLPROF_SRC/tests/programs/latency/slow_requests.c"
started=$(date +%s)
"$INCLPROF" record -o rec --max-size 2M --snapshot-if 'slow_part>5ms' --snapshot-keep 1000 \
  ./slow_requests "$requests" "$every" >own.txt 2>err.txt &
rec=$!
: >disk.txt # seconds since the start, the ring's bytes, the snapshots' bytes
while kill -0 "$rec" 2>/dev/null; do
  sleep 5
  ring=$(cat rec/*.ipb rec/*.ipb.prev 2>/dev/null | wc -c)
  snaps=$(du -sb rec/snapshots 2>/dev/null | cut -f1)
  echo "$(($(date +%s) - started)) $ring ${snaps:-0}" >>disk.txt
done
wait "$rec"
check_eq "the program ran recorded to its end" 0 "$?"
took=$(($(date +%s) - started))
check "the ring turned over" test -f rec/*.ipb.prev

# the k-th slow call (k from 0): the program's measure around the request
awk -v e="$every" '$1 == "slow" && $2 % e == e - 1 { print int($2 / e), $3 }' own.txt >slow.txt
check_eq "the program made its 100 slow calls" 100 "$(wc -l <slow.txt)"
"$INCLPROF" info rec >info.txt 2>&1
# NAME TOOK_NS per snapshot, in the order they were taken, then its window
# as the report of the snapshot gives it (wall time, --raw: by the clock)
awk 'function ns(v, u) { return v * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }
  /^snapshots:/ { on = 1; next } on && $2 == "slow_part" { printf "%s %d\n", $1, ns($3, $4) }' info.txt |
  sort -t- -k2,2n | while read -r name t; do
    w=$("$INCLPROF" report --raw "rec/snapshots/$name" 2>&1 | sed -n 's/.*wall time \([0-9.]*\) \([mu]*s\)[ ;].*/\1 \2/p' |
      awk '{ print $1 * ($2 == "ms" ? 1e6 : $2 == "us" ? 1e3 : 1e9) }')
    echo "$name $t ${w:-0}"
  done >snaps.txt
n=$(wc -l <snaps.txt)
check_eq "one snapshot per slow call, nothing else kept" 100 "$n"
paste -d' ' snaps.txt slow.txt | awk '{
    name = $1; t = $2; w = $3; k = $4; around = $5; asked = 6e6 + 5e5 * k
    if (t < asked || t > around * 1.02) print name, "call", k, "took", t, "ns: not between", asked, "and", around
    else if (w < (t + 2e6) * 0.98 || w > (t + 2e6) * 1.02) print name, "window", w, "ns for a call of", t, "ns" }' >wrong.txt
check_eq "the k-th snapshot holds the k-th slow call, its window the call and 1 ms on each side" "" "$(cat wrong.txt)"
check "each snapshot reads" sh -c 'for d in rec/snapshots/*; do "$INCLPROF" report "$d" >/dev/null 2>&1 || exit 1; done'

samples=$(wc -l <disk.txt)
check "the directory sampled at least 6 times ($samples)" test "$samples" -ge 6
ring_max=$(sort -k2,2n disk.txt | tail -1 | cut -d' ' -f2)
check "the ring's files never above twice the ring: at most ${ring_max} bytes of 4 MiB (+ 64 KiB)" \
  test "${ring_max:-0}" -le $((4 * 1048576 + 65536))
third=$((samples / 3))
first=$(head -n "$third" disk.txt | awk '{ if ($2 > m) m = $2 } END { print m + 0 }')
last=$(tail -n "$third" disk.txt | awk '{ if ($2 > m) m = $2 } END { print m + 0 }')
check "the ring does not grow: last third's largest ${last} bytes within 10 % of the first third's ${first}" \
  awk -v a="$first" -v b="$last" 'BEGIN { exit !(a > 0 && b <= a * 1.10) }'
snap_bytes=$(du -sb rec/snapshots | cut -f1)
sizes=$(for d in rec/snapshots/*; do du -sb "$d" | cut -f1; done | sort -n | sed -n '1p;$p' | tr '\n' ' ')
echo "figure: snapshot soak: ${took} s, $requests requests, $n snapshots of the 100 slow calls in $((snap_bytes / 1024)) KiB (smallest and largest in bytes: ${sizes% }); the ring's files at most $((ring_max / 1024)) KiB (2 MB ring)"
done_testing
