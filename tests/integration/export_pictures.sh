#!/bin/sh
# export_pictures.sh - the picture exports, each opened by what a person uses:
#   html: headless Chromium (playwright-core) opens the page with no request
#   beyond the file, shows one view per thread plus the merged one with one
#   frame per call path, a tooltip whose values equal the CSV, zooms on a
#   click, searches, and takes a screenshot; a program with 111 111 distinct
#   call paths draws with under 2 s of the renderers' CPU;
#   speedscope: speedscope's own app imports the file; its profile list and
#   Sandwich view (Total/Self per function) equal the CSV;
#   perfetto: protoc --decode reads it with our schema subset; every begin has
#   its end, names are interned before use, and the slices' calls and
#   durations equal the CSV exactly; it is at least 5x smaller than the Chrome
#   JSON of the same calls.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"
need chromium protoc node python3
PICS=$(sh "$INCLPROF_SRC/tests/viewers/pictures/setup.sh") || { fail "tests/viewers/pictures/setup.sh failed"; exit 1; }
ok "picture viewers installed in $PICS"

check "compile with the plugin" cc_plugin threads "$INCLPROF_SRC/tests/programs/convert/threads.c" -O0 -pthread
check "run under inclprof record" "$INCLPROF" record ./threads
for f in csv html speedscope perfetto chrome; do
  check "export --format $f" "$INCLPROF" export --format "$f"
done
"$INCLPROF" export -f csv --by thread -o by-thread.csv 2>/dev/null
decode() {
  protoc --decode=perfetto.protos.Trace -I"$INCLPROF_SRC/proto" \
    "$INCLPROF_SRC/proto/perfetto_trace.proto" <"$1"
}
decode inclprof.perfetto-trace | python3 "$INCLPROF_SRC/tests/viewers/pictures/perfetto-check.py" >perfetto.txt

# --- html ------------------------------------------------------------------
check "html: the page names no other file or URL to load" \
  sh -c '! grep -qiE "<(link|img|iframe)|src=|https?://" inclprof.html'
node "$PICS/flame-probe.mjs" inclprof.html flame.png worker pthread_join usleep >probe.txt 2>probe.err
check_eq "html: Chromium opened it without errors" "errors 0" "$(grep '^errors' probe.txt)"
check_eq "html: no request beyond the file itself" "requests 0" "$(grep '^requests' probe.txt)"
check_eq "html: a view per thread and the merged one" "$(($(csv_rows by-thread.csv tid | wc -l) + 1))" \
  "$(grep -c '^view ' probe.txt)"
# The call paths the perfetto export's slices form (stacks of names, as
# perfetto-check.py rebuilds them from the decoded trace) are the frames.
check_eq "html: merged view: one frame per distinct call path" \
  "$(awk '$1 == "paths" && $2 == "all" { print $3 }' perfetto.txt)" \
  "$(awk '$1 == "view" && $2 == 0 { print $3 }' probe.txt)"
for tid in $(csv_rows by-thread.csv tid); do
  check_eq "html: thread $tid's view: one frame per call path" \
    "$(awk -v t="$tid" '$1 == "paths" && $2 == t { print $3 }' perfetto.txt)" \
    "$(awk -v t="\"thread $tid" '$1 == "view" && index($0, t) { print $3 }' probe.txt)"
done
crit_value=
"$INCLPROF" info 2>/dev/null | grep -Eq 'why:.*, wake-ups' && crit_value=" Critical path"
check_eq "html: value switch (kevents: with the wait breakdown${crit_value:+ and the critical path})" \
  "values Elapsed Application Off-CPU preempted Off-CPU blocked System calls Page faults$crit_value" "$(grep '^values' probe.txt)"
# The tooltip of a function with one call path equals its CSV row.
for fn in worker pthread_join usleep; do
  csv_rows inclprof.csv function calls elapsed_inclusive_ns elapsed_exclusive_ns elapsed_inclusive_pct \
    elapsed_exclusive_pct application_inclusive_ns application_exclusive_ns application_inclusive_pct \
    application_exclusive_pct offcpu_preempted_inclusive_ns offcpu_preempted_exclusive_ns \
    offcpu_blocked_inclusive_ns offcpu_blocked_exclusive_ns syscall_inclusive_ns syscall_exclusive_ns \
    page_fault_inclusive_ns page_fault_exclusive_ns | awk -F'\t' -v f="$fn" '$1 == f' >want.txt
  check "html: tooltip of $fn = its CSV row (calls, Elapsed and Application ns and %, the wait columns' ns)" python3 - "$fn" <<'PY'
import sys
fn = sys.argv[1]
want = open('want.txt').read().rstrip('\n').split('\t')
tip = {}
for line in open('probe.txt'):
    w = line.split()
    if w[:2] == ['tip', fn] and w[2] == 'calls':
        tip['calls'] = w[3]
    elif w[:2] == ['tipcol', fn]:
        tip[' '.join(w[2:-4])] = w[-4:]
calls, ei, ee, eip, eep, ai, ae, aip, aep = want[1:10]
assert tip.get('calls') == calls, f"calls {tip.get('calls')} != {calls}"
for col, (i, e, ip, ep) in (('Elapsed', (ei, ee, eip, eep)), ('Application', (ai, ae, aip, aep))):
    got = tip[col]
    assert int(float(got[0])) == int(i) and int(float(got[1])) == int(e), f"{col}: {got[:2]} != {i} {e}"
    assert abs(float(got[2]) - float(ip)) < 1e-5 and abs(float(got[3]) - float(ep)) < 1e-5, f"{col} %: {got[2:]} != {ip} {ep}"
waits = want[10:18]
for n, col in enumerate(('Off-CPU preempted', 'Off-CPU blocked', 'System calls', 'Page faults')):
    got = tip[col]
    i, e = waits[2 * n], waits[2 * n + 1]
    assert int(float(got[0])) == int(i) and int(float(got[1])) == int(e), f"{col}: {got[:2]} != {i} {e}"
PY
done
check_eq "html: a click zooms the frame to the full width" "yes" \
  "$(awk '$1 == "zoom" { print ($3 == $4 && $3 > 100) ? "yes" : "no: " $0 }' probe.txt)"
check "html: search finds the one worker frame" grep -q '^search worker .*search: 1 frame,' probe.txt
check "html: a PNG screenshot was taken" sh -c 'head -c 8 flame.png | od -c | grep -q "P   N   G" && [ "$(wc -c <flame.png)" -gt 5000 ]'

# --- speedscope --------------------------------------------------------------
node "$PICS/speedscope-load.mjs" inclprof.speedscope.json >speedscope.txt 2>speedscope.err
check_eq "speedscope: its importer read the file without errors" "errors 0" "$(grep '^errors' speedscope.txt)"
check_eq "speedscope: imported as its own format" "imported speedscope json file" "$(grep '^imported' speedscope.txt)"
check_eq "speedscope: the merged tree and one evented profile per thread" \
  "$(($(csv_rows by-thread.csv tid | wc -l) + 1))" "$(grep -c '^profile ' speedscope.txt)"
# It opens on the evented profile of the thread with the most Elapsed time.
busiest=$(python3 -c 'import csv
rows = list(csv.DictReader(open("by-thread.csv")))
print(max(rows, key=lambda r: int(r["elapsed_inclusive_ns"]))["tid"])')
opened=$(sed -n 's/^opened on \([0-9]*\).*/\1/p' speedscope.txt)
check "speedscope: it opens on the busiest thread's timeline (tid $busiest), not the merged profile" \
  grep -Eq "^profile $((opened - 1)) [0-9.]+ \"thread $busiest " speedscope.txt
check "speedscope: profile weights and Sandwich Total/Self = CSV (to speedscope's 2 decimals)" python3 - <<'PY'
import csv, json
fns = {r['function']: r for r in csv.DictReader(open('inclprof.csv'))}
threads = {r['tid']: r for r in csv.DictReader(open('by-thread.csv'))}
total = sum(int(r['elapsed_inclusive_ns']) for r in threads.values())
seen = 0
for line in open('speedscope.txt'):
    w = line.split(' ', 6)
    if w[0] == 'profile':
        name, weight = json.loads(line.split(' ', 3)[3]), float(w[2])
        want = total if w[1] == '0' else int(threads[name.split()[1]]['elapsed_inclusive_ns'])
        assert abs(weight - want) <= 0.005 * max(weight, 1) + 1, f'{name}: {weight} != {want}'
    elif w[0] == 'fn' and w[1] == '0':
        t, rt, s, rs, name = float(w[2]), float(w[3]), float(w[4]), float(w[5]), json.loads(w[6])
        r = fns[name]
        assert abs(t - int(r['elapsed_inclusive_ns'])) <= rt + 1e-6 * t, f'{name} total {t} != {r["elapsed_inclusive_ns"]}'
        assert abs(s - int(r['elapsed_exclusive_ns'])) <= rs + 1e-6 * s, f'{name} self {s} != {r["elapsed_exclusive_ns"]}'
        seen += 1
assert seen == len([r for r in fns.values() if int(r['elapsed_inclusive_ns'])]), f'{seen} functions in Sandwich'
PY

# --- perfetto ----------------------------------------------------------------
check "perfetto: protoc --decode reads it with the schema subset" decode inclprof.perfetto-trace
check_eq "perfetto: every begin ended, names interned, sequences well formed" "0" \
  "$(awk '$1 == "slices" { print $6 }' perfetto.txt)"
check_eq "perfetto: one slice per call" "$(csv_rows by-thread.csv calls | awk '{ s += $1 } END { print s }')" \
  "$(awk '$1 == "slices" { print $2 }' perfetto.txt)"
check_eq "perfetto: a track per thread" "$(csv_rows by-thread.csv tid | wc -l)" \
  "$(awk '$1 == "slices" { print $4 }' perfetto.txt)"
csv_rows inclprof.csv function calls elapsed_inclusive_ns elapsed_exclusive_ns application_inclusive_ns >csv-calls.txt
sed -n 's/^fn //p' perfetto.txt >perfetto-calls.txt
same_lines "perfetto: per function calls, Elapsed Incl/Excl and Application Incl = CSV" csv-calls.txt perfetto-calls.txt

# --- 10^5 distinct call paths -------------------------------------------------
cat >paths.c <<'EOF2'
#define DECL(i) void f##i(int d);
DECL(0) DECL(1) DECL(2) DECL(3) DECL(4) DECL(5) DECL(6) DECL(7) DECL(8) DECL(9)
#define CALLS(d) f0(d); f1(d); f2(d); f3(d); f4(d); f5(d); f6(d); f7(d); f8(d); f9(d);
#define DEF(i) void f##i(int d) { if (d > 0) { CALLS(d - 1) } }
DEF(0) DEF(1) DEF(2) DEF(3) DEF(4) DEF(5) DEF(6) DEF(7) DEF(8) DEF(9)
int main(void) { CALLS(4) return 0; }
EOF2
check "compile a program of 111 111 call paths" cc_plugin paths paths.c -O0
mkdir big && cd big || exit 1
check "record it" "$INCLPROF" record ../paths
for f in html perfetto chrome; do check "export --format $f" "$INCLPROF" export --format "$f"; done
# main is hovered: one of f0-f9 can be too narrow to draw when a busy machine
# preempted the program for long inside another.
node "$PICS/flame-probe.mjs" inclprof.html flame.png main >probe.txt 2>probe.err
check_eq "html: 111 111 frames (main, then 10 + 100 + ... + 100 000 paths)" "111111" \
  "$(awk '$1 == "view" && $2 == 0 { print $3 }' probe.txt)"
# The renderers' CPU time, not the wall time: a busy machine stretches the
# latter by its waits for a CPU (2.5 s seen at a load of 20, 0.6 s quiet).
ms=$(awk '$1 == "ready" { print $2 }' probe.txt)
cpu=$(awk '$1 == "readycpu" { print $2 }' probe.txt)
check "html: drawn with ${cpu:-?} s of the renderers' CPU (< 2 s; ${ms:-?} ms after navigation start)" \
  awk -v c="${cpu:-x}" 'BEGIN { exit !(c ~ /^[0-9.]+$/ && c < 2) }'
check_eq "html: hovering a frame shows its calls" "tip main calls 1" "$(grep '^tip main' probe.txt)"
pf=$(wc -c <inclprof.perfetto-trace) js=$(wc -c <inclprof.trace.json)
check "perfetto: $pf bytes, Chrome JSON $js: at least 5x smaller" test $((pf * 5)) -le "$js"
decode inclprof.perfetto-trace | python3 "$INCLPROF_SRC/tests/viewers/pictures/perfetto-check.py" >perfetto.txt
check_eq "perfetto: all 111 111 calls, well formed" "slices 111111 tracks 1 problems 0" "$(tail -n1 perfetto.txt)"
done_testing
