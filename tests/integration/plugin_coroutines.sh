#!/bin/sh
# plugin_coroutines.sh - a coroutine's body (GCC's "actor") and destroy
# function are instrumented and named after the coroutine (coroutines.cc:
# 500 requests on two threads, each suspending twice): every resumption is a
# call of "handle_request(int) [coroutine body]", the ramp keeps the plain
# name, render_page sits under the body, and the counts equal the program's
# own (requests, resumptions, destructions, pages), at -O0 and at -O2; each
# entry of the body follows the coroutine_frame probe with the frame's start,
# resumption or destruction bit.
. "$INCLPROF_SRC/tests/lib.sh"
need python3
PP="$INCLPROF_SRC/tests/programs/plugin"
calls() { python3 -c 'import csv, sys
print(sum(int(r["calls"]) for r in csv.DictReader(open("rec.csv")) if r["function"] == sys.argv[1]))' "$1"; }

for build in "-O0" "-O2 -fplugin-arg-inclprof-noinline=*coroutine?body]"; do
  rm -f coroutines report.txt
  # shellcheck disable=SC2086
  g++ -std=c++20 -fcoroutines -fplugin="$INCLPROF_PLUGIN" $build -fplugin-arg-inclprof-report=report.txt \
    "$PP/coroutines.cc" -o coroutines -pthread || fail "$build: build coroutines.cc"
  rm -rf rec && "$INCLPROF" record -o rec ./coroutines >out.txt 2>/dev/null || fail "$build: record"
  # requests N resumes N destroys N pages N
  set -- $(awk '{ for (i = 2; i <= NF; i += 2) print $i }' out.txt)
  check_eq "$build: the program's own counts" "500 1500 500 1000" "$*"
  "$INCLPROF" export --format csv -o rec.csv rec 2>/dev/null
  check_eq "$build: the ramp: one call per request" "$1" "$(calls 'handle_request(int)')"
  # The ramp starts the body once (to its initial suspension), the scheduler
  # resumes it, and the destroy function runs it once more to destroy the frame.
  check_eq "$build: the body: one call per start, resumption and destruction" "$(($1 + $2 + $3))" \
    "$(calls 'handle_request(int) [coroutine body]')"
  check_eq "$build: the destroy function: one call per destruction" "$3" \
    "$(calls 'handle_request(int) [coroutine destroy]')"
  "$INCLPROF" export --format callgrind -o rec.cg rec 2>/dev/null
  check_eq "$build: render_page: one call per page" "$4" "$(calls 'render_page(int)')"
  check "$build: ... every one of them from the body" sh -c "python3 '$PP/libcall_counts.py' rec.cg \
    'handle_request(int) [coroutine body]' | grep -q ' $4 render_page(int)'"
  check "$build: report: the body is instrumented under its readable name" grep -q \
    '^instrumented	handle_request(int) \[coroutine body\]	.*coroutines.cc:[0-9]*	' report.txt
done

# At -O2 GCC may inline the ramp's first call of the body into the ramp: the
# body's row then counts the resumptions and destructions, and is marked as
# also inlined into the ramp at one site.
g++ -std=c++20 -fcoroutines -O2 -fplugin="$INCLPROF_PLUGIN" "$PP/coroutines.cc" -o coroutines -pthread ||
  fail "-O2: build coroutines.cc"
rm -rf rec && "$INCLPROF" record -o rec ./coroutines >out.txt 2>/dev/null || fail "-O2: record"
"$INCLPROF" export --format csv -o rec.csv rec 2>/dev/null
"$INCLPROF" report rec >table.txt 2>/dev/null
body=$(calls 'handle_request(int) [coroutine body]')
if grep -q '^1\. handle_request(int) \[coroutine body\]: also inlined into handle_request(int) at 1 site' table.txt; then
  check_eq "-O2: the body, started inside the ramp: resumptions and destructions" 2000 "$body"
else
  check_eq "-O2: the body: one call per start, resumption and destruction" 2500 "$body"
fi
# The frame the body runs: before each of its entries, the plugin's
# coroutine_frame probe gives the frame with its bits (logrt.c prints them):
# 1 for the ramp's start, 0 for a resumption, 2 for the destroy function's run.
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"
pcxx coro_log "$PP/coroutines.cc" -std=c++20 -fcoroutines -O2 -pthread || fail "logrt: build coroutines.cc"
LOGRT_TID=1 run frames.log ./coro_log >/dev/null
# Lines are "TID KIND NAME": the frame of each thread's next entry.
check_eq "logrt: the frame's bits before each entry of the body: starts, resumptions, destructions" \
  "500 1500 500" "$(awk '$2 == "F" { f[$1] = $3; next }
    $2 == "E" && $3 ~ /Frame\.actor$/ { n[f[$1]]++; f[$1] = "none" }
    END { printf "%d %d %d", n[1], n[0], n[2] }' frames.log)"
check_eq "logrt: no entry of the body without its frame" 0 "$(awk '$2 == "F" { f[$1] = 1; next }
    $2 == "E" && $3 ~ /Frame\.actor$/ { if (!f[$1]) bad++; f[$1] = 0 } END { print bad + 0 }' frames.log)"
done_testing
