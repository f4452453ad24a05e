#!/bin/bash
# suggest.sh - `make bench-suggest`: profile -> `inclprof suggest` -> rebuild
# with the filter -> profile again, on examples/wordfreq and on Debian's Lua
# (the lua5.4 source package tests/integration/plugin_debian_lua.sh fetches
# into build/debian-src).  For each: the wall-time overhead of the full and
# the filtered build against the uninstrumented one (medians of BENCH_RUNS
# runs, round-robin) and the share of it the filter removed, events and trace
# size, the Elapsed Inclusive of the ten costliest functions the filter keeps
# before and after, and the callers that received the excluded functions'
# time.  Reports figures; asserts nothing.
#   usage: bench/suggest.sh BUILD_DIR WORK_DIR OUT_MD     env: BENCH_RUNS (5)
set -u
[ $# -eq 3 ] || { echo "usage: bench/suggest.sh BUILD_DIR WORK_DIR OUT_MD" >&2; exit 2; }
B=$1 W=$2
OUT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 1
SRC=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${BENCH_RUNS:-5}
INCLPROF=$B/inclprof
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
say() { echo "bench-suggest: $*" >&2; }
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END{if(NR==0)exit 1; print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
events() { "$INCLPROF" info "$1" | sed -n 's/^events: *\([0-9]*\).*/\1/p'; }

# measure NAME PLAIN_CMD FULL_CMD FILTERED_CMD: times the three round-robin
# (the instrumented ones record into NAME-full.data / NAME-filtered.data) and
# prints the Markdown section.
measure() {
  local name=$1 v t0 t1
  declare -A cmd=([plain]=$2 [full]=$3 [filtered]=$4) T
  for ((r = 1; r <= RUNS; r++)); do
    for v in plain full filtered; do
      say "run $r/$RUNS: $name $v"
      rm -rf "$name-$v.data"
      t0=$EPOCHREALTIME
      sh -c "${cmd[$v]}" >"$name-$v.out" 2>"$name-$v.err" || { echo "$name $v failed: $(tail -n1 "$name-$v.err")"; return; }
      t1=$EPOCHREALTIME
      T[$v]="${T[$v]:-} $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", (b-a)*1e9}')"
    done
  done
  local tp tf tx
  tp=$(echo "${T[plain]}" | median) tf=$(echo "${T[full]}" | median) tx=$(echo "${T[filtered]}" | median)
  "$INCLPROF" export --format csv -o "$name-full.csv" "$name-full.data" 2>/dev/null
  "$INCLPROF" export --format csv -o "$name-filtered.csv" "$name-filtered.data" 2>/dev/null
  echo "| build | wall ms (median of $RUNS) | overhead | events | trace bytes |"
  echo "|---|---:|---:|---:|---:|"
  awk -v t="$tp" 'BEGIN{printf "| uninstrumented | %.1f | | | |\n", t/1e6}'
  awk -v t="$tf" -v t0="$tp" -v e="$(events "$name-full.data")" -v s="$(du -sb "$name-full.data" | cut -f1)" \
    'BEGIN{printf "| plugin, every function | %.1f | %+.1f%% | %d | %d |\n", t/1e6, (t/t0-1)*100, e, s}'
  awk -v t="$tx" -v t0="$tp" -v e="$(events "$name-filtered.data")" -v s="$(du -sb "$name-filtered.data" | cut -f1)" \
    'BEGIN{printf "| plugin + suggested filter | %.1f | %+.1f%% | %d | %d |\n", t/1e6, (t/t0-1)*100, e, s}'
  echo
  awk -v p="$tp" -v f="$tf" -v x="$tx" 'BEGIN{ if (f > p) printf "Overhead removed by the filter: %.0f%% (goal: at least 50%%).\n", (1 - (x-p)/(f-p))*100;
                                              else print "Overhead removed: not measurable (the full build was not slower)." }'
  echo
  python3 - "$name-full.csv" "$name-filtered.csv" "$name.filter" "$name.suggest" <<'PY'
import csv, re, sys
full = {r["function"]: r for r in csv.DictReader(open(sys.argv[1]))}
filt = {r["function"]: r for r in csv.DictReader(open(sys.argv[2]))}
gone = set(l.split("=", 1)[1].strip() for l in open(sys.argv[3]) if l.startswith("exclude"))
kept = sorted((f for f in full if f not in gone and f in filt), key=lambda f: -int(full[f]["elapsed_inclusive_ns"]))[:10]
print("Elapsed Inclusive of the ten costliest kept functions (one recorded run each):")
print()
print("| function | before ms | after ms | after / before |")
print("|---|---:|---:|---:|")
worst = 0
for f in kept:
    a, b = int(full[f]["elapsed_inclusive_ns"]), int(filt[f]["elapsed_inclusive_ns"])
    worst = max(worst, abs(b / a - 1) if a else 0)
    print(f"| `{f}` | {a/1e6:.2f} | {b/1e6:.2f} | {b/a if a else 0:.3f} |")
print()
print(f"Largest difference: {worst*100:.1f}% (goal: within 5%).")
print()
into = {}
for l in open(sys.argv[4]):
    m = re.search(r" (\S+) +exclude: its ([0-9.]+)% of the session go to (.+)'s Exclusive$", l)
    if m:
        into.setdefault(m.group(3), []).append(m.group(1))
rows = sorted(((c, fs) for c, fs in into.items() if c in full and c in filt),
              key=lambda x: -(int(filt[x[0]]["elapsed_exclusive_ns"]) - int(full[x[0]]["elapsed_exclusive_ns"])))[:8]
print("Where the excluded functions' time went: the callers' Elapsed Exclusive before and after:")
print()
print("| caller | excluded callees | Exclusive % before | Exclusive % after |")
print("|---|---|---:|---:|")
for c, fs in rows:
    print(f"| `{c}` | {', '.join('`'+f+'`' for f in fs[:4])}{' ...' if len(fs) > 4 else ''} | "
          f"{float(full[c]['elapsed_exclusive_pct']):.2f} | {float(filt[c]['elapsed_exclusive_pct']):.2f} |")
PY
}

{
echo "## Profile-guided filters: \`inclprof suggest\`"
echo
echo "Each program: one profiled run, \`inclprof suggest\` (Lua with its default \`--max-overhead 5\`;"
echo "wordfreq with \`--max-overhead 1\`: the limit is a share of the session's Elapsed Inclusive,"
echo "summed over threads, and wordfreq's threads spend most of theirs waiting for work or a lock),"
echo "a rebuild with the filter, then $RUNS round-robin runs of each build."
echo
say "wordfreq"
echo "### examples/wordfreq"
echo
wf() { env -u MAKEFLAGS -u MAKELEVEL make -s -B -C "$SRC/examples/wordfreq" INCLPROF_INCLUDE="$SRC/runtime" "$@"; }
mkdir -p files
if wf O="$W/wf-plain" INCLPROF_PLUGIN= >/dev/null 2>wf.log && wf O="$W/wf-full" INCLPROF_PLUGIN="$B/inclprof.so" >/dev/null 2>>wf.log &&
   "$INCLPROF" record -o wf-profile.data -- ./wf-full/wordfreq -d files >/dev/null 2>>wf.log &&
   "$INCLPROF" suggest wf-profile.data --max-overhead 1 -o "$W/wf.filter" >wf.suggest 2>>wf.log &&
   wf O="$W/wf-filtered" INCLPROF_PLUGIN="$B/inclprof.so" INCLPROF_FILTER="$W/wf.filter" >/dev/null 2>>wf.log; then
  sed -n 's/^estimate: /suggest'"'"'s estimate: /p' wf.suggest; echo
  measure wf "./wf-plain/wordfreq -d files" "$INCLPROF record -o wf-full.data -- ./wf-full/wordfreq -d files" \
    "$INCLPROF record -o wf-filtered.data -- ./wf-filtered/wordfreq -d files"
else
  echo "not measured: $(tail -n1 wf.log)"
fi
echo
say "lua"
echo "### Debian's Lua 5.4 (\`tests/programs/plugin/lua_work.lua\`)"
echo
tarball=$(ls "$SRC"/build/debian-src/lua5.4_*.orig.tar.gz 2>/dev/null | head -n1)
work=$SRC/tests/programs/plugin/lua_work.lua
lua_build() { mkdir "$1" && tar xzf "$tarball" -C "$1" --strip-components=1 && make -s -C "$1/src" -j2 linux-noreadline MYCFLAGS="$2" >/dev/null 2>>lua.log; }
if [ -z "$tarball" ]; then
  echo "not measured: no lua5.4 source in build/debian-src (tests/integration/plugin_debian_lua.sh fetches it)"
elif lua_build lua-plain "" && lua_build lua-full "-fplugin=$B/inclprof.so" &&
     "$INCLPROF" record -o lua-profile.data lua-full/src/lua "$work" >/dev/null 2>>lua.log &&
     "$INCLPROF" suggest lua-profile.data -o "$W/lua.filter" >lua.suggest 2>>lua.log &&
     lua_build lua-filtered "-fplugin=$B/inclprof.so -fplugin-arg-inclprof-filter=$W/lua.filter"; then
  sed -n 's/^estimate: /suggest'"'"'s estimate: /p' lua.suggest; echo
  measure lua "lua-plain/src/lua $work" "$INCLPROF record -o lua-full.data lua-full/src/lua $work" \
    "$INCLPROF record -o lua-filtered.data lua-filtered/src/lua $work"
else
  echo "not measured: $(tail -n1 lua.log)"
fi
} >"$OUT"
cat "$OUT"
