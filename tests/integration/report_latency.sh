#!/bin/sh
# report_latency.sh - per-call distributions and the slowest calls, against
# the program's own measurement (tests/programs/latency/bimodal.c: 1000
# calls of handle(), 2 % of them slow; it times each call itself and prints
# its p50, p90, p99 and maximum): report --latency and the CSV's p50_ns,
# p90_ns, p99_ns and max_ns within 2 % of the program's figures (p50 and p90
# within 2 % of the band the program gives each: the calls a preemption
# between its clock read and its probe can move across the rank); --slowest
# names the slow calls and the slow callee inside each; export --slowest
# writes just those calls and what ran inside them; diff compares p99.
. "$INCLPROF_SRC/tests/lib.sh"
need python3
cc_plugin bimodal -O2 -g "$INCLPROF_SRC/tests/programs/latency/bimodal.c"
"$INCLPROF" record -o rec ./bimodal >own.txt 2>/dev/null
own=$(head -1 own.txt)
check "the program printed its own four figures" sh -c 'echo "$1" | grep -Eq "^[0-9]+ [0-9]+ [0-9]+ [0-9]+$"' _ "$own"
set -- $own
p99=$3 max=$4
set -- $(sed -n 's/^band //p' own.txt)
p50lo=$1 p50hi=$2 p90lo=$3 p90hi=$4

# within PCT % of the program's figure: NAME OURS THEIRS PCT
within() {
  if awk -v a="$2" -v b="$3" -v p="$4" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100) }'; then
    ok "$1: $2 ns against the program's $3 ns (within $4 %)"
  else
    fail "$1: $2 ns against the program's $3 ns: more than $4 % apart"
  fi
}
"$INCLPROF" export --format csv -o calls.csv rec 2>/dev/null
col() { python3 "$INCLPROF_SRC/scripts/csv_query.py" calls.csv handle "$1"; }
check_eq "the CSV has the distribution columns" "p50_ns,p90_ns,p99_ns,p999_ns,max_ns" "$(head -1 calls.csv | grep -o 'p50_ns.*max_ns')"
check_eq "handle ran 1000 times" 1000 "$(col calls)"
# in_band NAME OURS LO HI PCT: LO - PCT % <= OURS <= HI + PCT %
in_band() {
  if awk -v a="$2" -v lo="$3" -v hi="$4" -v p="$5" 'BEGIN { exit !(lo > 0 && a >= lo * (1 - p / 100) && a <= hi * (1 + p / 100)) }'; then
    ok "$1: $2 ns within $5 % of the program's $3..$4 ns"
  else
    fail "$1: $2 ns against the program's $3..$4 ns: more than $5 % outside"
  fi
}
in_band "p50 of handle (CSV)" "$(col p50_ns)" "$p50lo" "$p50hi" 2
in_band "p90 of handle (CSV)" "$(col p90_ns)" "$p90lo" "$p90hi" 2
within "p99 of handle (CSV)" "$(col p99_ns)" "$p99" 2
within "max of handle (CSV)" "$(col max_ns)" "$max" 1
check_eq "slow_part: the 20 slow calls" 20 "$(python3 "$INCLPROF_SRC/scripts/csv_query.py" calls.csv slow_part calls)"

"$INCLPROF" report --latency rec >latency.txt 2>&1
check "report --latency says what it shows" grep -q "^latency: each call's Elapsed Inclusive time (quantiles within 0.8 %, Min and Max exact)" latency.txt
row=$(awk '$NF == "handle"' latency.txt)
check_eq "report --latency: handle's row has calls, 6 times and a 16-cell histogram" 1000 \
  "$(echo "$row" | awk 'NF == 15 && length($14) == 16 { print $1 }')"

# --slowest: the 10 longest calls, each explained: slow_part inside it and
# (on a loaded machine) the time the call waited for a CPU, which its wait
# breakdown says, add up to over 90 % of it (a slow call whose compute()
# waited a millisecond for a CPU reads two thirds slow_part, one third
# preempted).
"$INCLPROF" report --slowest handle rec >slowest.txt 2>&1
check "report --slowest: the 10 longest of 1000 calls" grep -q "^slowest: the 10 longest of 1000 calls of handle by Elapsed Inclusive time" slowest.txt
check_eq "ten slow calls are listed" 10 "$(grep -c '^#[0-9]* ' slowest.txt)"
check_eq "each is explained by slow_part inside it or its preempted time" 10 "$(awk '
  function ns(v, u) { return u == "ms" ? v * 1e6 : u == "us" ? v * 1e3 : u == "s" ? v * 1e9 : v }
  function done() { if (call && slow + pre > 0.9 * call) n++ }
  /^#[0-9]+ / { done(); call = ns($2, $3); slow = pre = 0 }
  /^    waits:/ { u = $4; sub(",", "", u); pre = ns($3, u) }
  $NF == "slow_part" { slow = ns($2, $3) }
  END { done(); print n + 0 }' slowest.txt)"
first=$(awk '/^#1 / { print $2, $3; exit }' slowest.txt)
within "the slowest call's time" "$(echo "$first" | awk '{ print ($2 == "ms" ? $1 * 1e6 : $2 == "us" ? $1 * 1e3 : $1 * 1e9) }')" "$max" 1
"$INCLPROF" report --slowest handle --top 3 rec >three.txt 2>&1
check_eq "--top 3 lists three" 3 "$(grep -c '^#[0-9]* ' three.txt)"
msg=$("$INCLPROF" report --slowest nosuchfn rec 2>&1 >/dev/null); rc=$?
check_eq "--slowest of a function that never ran: exit 1" 1 "$rc"
check "... and one line naming it" sh -c 'echo "$1" | grep -q "^inclprof report: no call of .nosuchfn. ended in the traces"' _ "$msg"
msg=$("$INCLPROF" report --latency --wait rec 2>&1 >/dev/null); rc=$?
check_eq "--latency with --wait: a usage error" "2 inclprof report: --latency goes with the table or --tree, not with --wait" "$rc $msg"

# export --slowest: just the 3 slowest calls of handle and the calls inside them,
# the same calls report --slowest --top 3 lists (on a loaded machine a fast
# call that waited for a CPU can be among them: it has no slow_part inside).
"$INCLPROF" export --format chrome --slowest handle --slowest-calls 3 -o slow.json rec 2>/dev/null
k=$(awk '/^#[0-9]+ / { c++ } $NF == "slow_part" && !s[c]++ { k++ } END { print k + 0 }' three.txt)
check_eq "export --slowest: the 3 handle slices of report --slowest --top 3, with compute and the $k slow_part and nanosleep calls inside them" \
  "compute:3 handle:3 nanosleep:$k slow_part:$k" \
  "$(python3 -c '
import json, sys, collections
ev = [e for e in json.load(open("slow.json"))["traceEvents"] if e.get("ph") == "X"]
c = collections.Counter(e["name"] for e in ev)
print(" ".join("%s:%d" % kv for kv in sorted(c.items())))')"
msg=$("$INCLPROF" export --format csv --slowest handle rec 2>&1); rc=$?
check_eq "--slowest with csv: a usage error" 2 "$rc"

# diff: slow calls twice as long (compute, Application time) double p99.
"$INCLPROF" record -o base ./bimodal 2000000 >/dev/null 2>&1
"$INCLPROF" record -o new ./bimodal 4000000 >/dev/null 2>&1
"$INCLPROF" diff --csv --value application base new >diff.csv 2>/dev/null
ratio=$(python3 -c '
import csv
for r in csv.DictReader(open("diff.csv")):
    if r["function"] == "handle":
        print("%.2f" % (int(r["new_p99_ns"]) / int(r["base_p99_ns"])))')
check "diff: handle's p99 doubles with its slow part (ratio $ratio)" awk -v r="$ratio" 'BEGIN { exit !(r > 1.7 && r < 2.3) }'
"$INCLPROF" diff base new >diff.txt 2>/dev/null
check "diff's table has the p99 columns" grep -q 'p99 base *p99 new' diff.txt
done_testing
