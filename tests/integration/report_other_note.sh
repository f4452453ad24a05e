#!/bin/sh
# report_other_note.sh - report's header notes the Other time: one call of
# a function that stores into 2 000 fresh pages with arithmetic between
# them is one interval between probes holding every page fault, so by the
# definition of Application time its code is not Application and no wait
# column takes it; the note gives that time, within 25 % of the CPU time
# the program measured itself, and the share of the Elapsed time, and
# matches report --wait's Other of the function.  Short calls, each its own
# interval, get no note.  16 000 faults in one interval overflow the
# thread's kernel-event buffer: with a busy loop sharing the CPU, the
# interval's time off the CPU is Other too, and the note says so.
. "$INCLPROF_SRC/tests/lib.sh"
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o fault_spans "$INCLPROF_SRC/tests/programs/convert/fault_spans.c" ||
  { fail "build"; exit 1; }
"$INCLPROF" record -o spans.d ./fault_spans spans 2000 20000 >spans.out 2>/dev/null
check_eq "the program exits 0 under record" 0 $?
if ! "$INCLPROF" info spans.d | grep -q '^waits:'; then
  ok "no kernel events here (no wait breakdown): skipping"
  done_testing
fi
"$INCLPROF" report --top 3 spans.d >report.txt 2>&1
note=$(grep '^note: .* is Other: ' report.txt)
check "the header notes the Other time ($(echo "$note" | cut -c1-60))" test -n "$note"
# ms VALUE UNIT: the value in ms
ms() { awk -v v="$1" -v u="$2" 'BEGIN { printf "%.6f", u == "s" ? v * 1000 : u == "ms" ? v : u == "us" ? v / 1000 : v / 1e6 }'; }
cpu=$(sed -n 's/^spans: \([0-9.]*\) ms of CPU.*/\1/p' spans.out)
other=$(echo "$note" | sed -n 's/^note: *\([0-9.]*\) \([mun]*s\) (.*/\1 \2/p')
# On a busy machine the thread's kernel-event buffer may overflow here too
# (the note then says so, and the lost intervals' time off the CPU is
# Other as well): the note holds at least the CPU time then.
if echo "$note" | grep -q 'kernel records were lost'; then
  check "records lost on this busy machine: the note's time holds the program's CPU time of spans() (note: $other, program: $cpu ms)" \
    awk -v o="$(ms $other)" -v c="$cpu" 'BEGIN { exit !(c > 0 && o >= 0.75 * c) }'
else
  check "the note's time is the program's own CPU time of spans() within 25 % (note: $other, program: $cpu ms)" \
    awk -v o="$(ms $other)" -v c="$cpu" 'BEGIN { exit !(c > 0 && o >= 0.75 * c && o <= 1.25 * c) }'
fi
"$INCLPROF" report --wait --top 3 spans.d >wait.txt 2>&1
row=$(awk '$NF == "spans" { print $(NF - 2), $(NF - 1) }' wait.txt)
check "report --wait gives spans() that Other time, within 1 % (the rest is main's own: $row)" \
  awk -v a="$(ms $other)" -v b="$(ms $row)" 'BEGIN { exit !(b > 0 && a >= b && a <= 1.01 * b + 0.05) }'
"$INCLPROF" record -o calls.d ./fault_spans calls 300000 >/dev/null 2>&1
"$INCLPROF" report --top 3 calls.d >calls.txt 2>&1
check "short calls, each its own interval: no note" sh -c "! grep -q 'is Other' calls.txt"
cpu0=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //; s/[,-].*//')
taskset -c "${cpu0:-0}" sh -c 'while :; do :; done' &
busy=$!
taskset -c "${cpu0:-0}" "$INCLPROF" record -o lost.d ./fault_spans spans 16000 3000 >lost.out 2>/dev/null
kill "$busy"
if ! "$INCLPROF" info lost.d | grep -q 'event buffer overflowed: [1-9]'; then
  ok "16 000 faults lost no kernel records here: skipping"
  done_testing
fi
"$INCLPROF" report --top 3 lost.d >lost.txt 2>&1
check "records lost: the note says those intervals' time is Other, off the CPU as well as on it" \
  grep -q "^note: .* is Other: .*, and of intervals whose kernel records were lost ([0-9]* times: the kernel's event buffer overflowed), all of the time, off the CPU (preempted, blocked) as well as on it; " lost.txt
cpu=$(sed -n 's/^spans: \([0-9.]*\) ms of CPU.*/\1/p' lost.out)
other=$(sed -n 's/^note: *\([0-9.]*\) \([mun]*s\) (.*/\1 \2/p' lost.txt)
check "... which holds more than the program's CPU time of spans() (note: $other, program: $cpu ms)" \
  awk -v o="$(ms $other)" -v c="$cpu" 'BEGIN { exit !(c > 0 && o > 1.2 * c) }'
COLUMNS=60 "$INCLPROF" report --top 3 lost.d >lost60.txt 2>&1
longest=$(awk '/^ *Calls / { exit } { if (length($0) > m) m = length($0) } END { print m + 0 }' lost60.txt)
check "COLUMNS=60: no header line is longer ($longest)" test "$longest" -le 60
done_testing
