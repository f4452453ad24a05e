#!/bin/sh
# export_html_butterfly.sh - the HTML page's butterfly pane and its fold
# switch, in headless Chromium (butterfly-probe.mjs clicks a frame as a
# person would): on hot_paths.c, a click on transform shows its callers and
# callees with the calls and Elapsed Inclusive time report --callers and
# --callees print for them, its calls as the program counts them (4 from
# run_batch, 1 from warm_up; kernel_loop 2100 times); a click on a callee
# row selects that callee; with the fold switch, libc's functions (qsort,
# usleep, printf) become frames [libc.so.6], qsort's time under transform
# is [libc.so.6]'s, and the instrumented compare_ints that qsort calls back
# stays, under it.  Screenshots of both.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"
need chromium node
PICS=$(sh "$INCLPROF_SRC/tests/viewers/pictures/setup.sh") || { fail "tests/viewers/pictures/setup.sh failed"; exit 1; }
check "hot_paths builds" cc_plugin hot_paths "$INCLPROF_SRC/tests/programs/convert/hot_paths.c" -O2
"$INCLPROF" record -o data ./hot_paths >run.txt 2>&1
check "export --format html" "$INCLPROF" export --format html -o page.html data
node "$PICS/butterfly-probe.mjs" page.html bf.png transform qsort '[libc.so.6]' compare_ints usleep >probe.txt 2>probe.err
check_eq "Chromium opened the page without errors, no request beyond it" "requests 0
errors 0" "$(tail -n 2 probe.txt)"
grep -q '^errors 0$' probe.txt || sed 's/^/# probe: /' probe.err
# ns as the report writes a time (util/text_table.c's ip_fmt_ns)
readable() {
  awk '{ v = $NF; $NF = "";
    if (v < 1000) t = sprintf("%d ns", v); else if (v < 1e6) t = sprintf("%.2f us", v / 1e3);
    else if (v < 1e9) t = sprintf("%.2f ms", v / 1e6); else t = sprintf("%.3f s", v / 1e9);
    print $0 t }'
}
pane() { awk -v k="$1" '$1 == k { print $2, $3, $4 }' probe.txt | readable | sort; }
cli() { "$INCLPROF" report "$1" transform --wide --fields calls,el-incl data 2>/dev/null |
  awk '/^ *Calls/ { on = 1; next } on && /^$/ { exit } on { print $4, $1, $2 " " $3 }' | sort; }
check_eq "callers: as report --callers transform (name, calls, Elapsed Inclusive)" "$(cli --callers)" "$(pane caller)"
check_eq "callees: as report --callees transform" "$(cli --callees)" "$(pane callee)"
check_eq "calls from each caller as the program makes them" "run_batch 4
warm_up 1" "$(awk '$1 == "caller" { print $2, $3 }' probe.txt | sort)"
check_eq "kernel_loop's calls as the program counted them" "$(sed -n 's/^calls kernel_loop //p' run.txt)" \
  "$(awk '$1 == "callee" && $2 == "kernel_loop" { print $3 }' probe.txt)"
check_eq "a click on the first callee row selects it" "picked kernel_loop" "$(grep '^picked ' probe.txt)"
qsort=$(awk '$1 == "callee" && $2 == "qsort" { print $3, $4 }' probe.txt)
check_eq "folded: qsort's calls and time under transform are [libc.so.6]'s" "$qsort" \
  "$(awk '$1 == "fold" && $2 == "callee" && $3 == "[libc.so.6]" { print $4, $5 }' probe.txt)"
check_eq "folded: no call path ends in qsort or usleep" "0 0" \
  "$(awk '$1 == "fold" && $2 == "paths" && ($3 == "qsort" || $3 == "usleep") { printf "%s%s", s, $4; s = " " }' probe.txt)"
check_eq "folded: [libc.so.6] where qsort, usleep and printf were (4 call paths)" 4 \
  "$(awk '$1 == "fold" && $2 == "paths" && $3 == "[libc.so.6]" { print $4 }' probe.txt)"
check_eq "folded: compare_ints, instrumented, kept under it" \
  "$(awk '$1 == "paths" && $2 == "compare_ints" { print $3 }' probe.txt)" \
  "$(awk '$1 == "fold" && $2 == "paths" && $3 == "compare_ints" { print $4 }' probe.txt)"
check "screenshots of the pane and the folded view" sh -c 'for f in bf.png bf-fold.png; do
  [ "$(head -c 8 "$f" | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a ] || exit 1; done'
done_testing
