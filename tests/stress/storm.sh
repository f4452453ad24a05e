#!/bin/sh
# storm.sh - the thread storm (tests/stress/storm.c): 1000 threads in 10 waves
# of 100, with fork children that exec /bin/true or an instrumented helper and
# a main process that ends by exec.  The calls counted in the traces (CSV
# `calls`, summed over every trace file) must equal the calls the program
# counted itself, function by function; every trace ends with a clean trailer.
# STRESS_WAVES, STRESS_PER_WAVE change the shape.
. "$INCLPROF_SRC/tests/lib.sh"
waves=${STRESS_WAVES:-10} per_wave=${STRESS_PER_WAVE:-100}
check "compile the storm with the plugin" gcc -std=c11 -O2 -g -pthread \
  -fplugin="$INCLPROF_PLUGIN" "$INCLPROF_SRC/tests/stress/storm.c" -o storm
start=$(date +%s.%N)
"$INCLPROF" record -o out -- ./storm "$waves" "$per_wave" counts >record.txt 2>&1
check_eq "the storm ran to the end" 0 "$?"
secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
files=$(ls out | wc -l)
"$INCLPROF" export --format csv -o calls.csv out 2>/dev/null
check_eq "export csv" 0 "$?"
# calls per instrumented function: made (the program's counts) and counted (CSV)
awk '{ s[$1] += $2 } END { for (f in s) print f, s[f] }' counts | sort >made.txt
awk -F, 'NR == FNR { split($0, w, " "); want[w[1]] = 1; next }
         FNR > 1 && ($1 in want) { s[$1] += $5 }
         END { for (f in s) print f, s[f] }' made.txt calls.csv | sort >counted.txt
check "calls counted = calls made, per function" cmp -s made.txt counted.txt
[ "$T_FAILS" -eq 0 ] || { echo "made:"; cat made.txt; echo "counted:"; cat counted.txt; }
made=$(awk '{ s += $2 } END { print s + 0 }' made.txt)
counted=$(awk '{ s += $2 } END { print s + 0 }' counted.txt)
"$INCLPROF" info out >info.txt 2>&1
check_eq "inclprof info reads every trace" 0 "$?"
clean=$(grep -c '^trailer: *clean shutdown' info.txt)
check_eq "every trace file ends with a clean trailer" "$files" "$clean"
check_eq "no damage" "$files" "$(grep -c '^damage: *none' info.txt)"
check_eq "no batch lost" "$files" "$(grep -c ' 0 batches lost$' info.txt)"
check_eq "no event dropped" "$files" "$(grep -c ', 0 dropped$' info.txt)"
threads=$(awk '/^threads:/ { s += $2 } END { print s }' info.txt)
events=$(awk '/^events:/ { s += $2 } END { print s }' info.txt)
procs=$(awk '/^process:/ { print $3 }' info.txt | sort -u | wc -l)
echo "figure: storm: $((waves * per_wave)) threads in $waves waves ($threads threads in all), $procs processes ($files trace files: exec starts a new one), $events events in ${secs} s; calls made $made = calls counted $counted"
done_testing
