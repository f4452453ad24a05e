#!/bin/sh
# plugin_longjmp.sh - a longjmp into a function that never returns (a main
# loop that recovers from errors) closes the frames it skipped where it lands:
# the probe after each return of sigsetjmp.  longjmp.c in three modes (a
# loop of failures, an inner try block inside an outer one, a longjmp out of
# a signal handler): every function keeps its depth and the program's own
# call counts, the same calls as callgrind counts on the plain binary, at
# -O0 and -O2, with asm and call probes; `record --aggregate` gives the same
# tree.  The landing probes run after both returns of each sigsetjmp.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/programs/plugin/common.sh"
SRC="$PP/longjmp.c"
FNS="main step try_inner deep1 deep2 fail1 fail2 fail3 spin1 spin2 raise on_signal"

# rows TRACE: each row of the call tree of the test's functions and
# siglongjmp as "name:calls@depth" (depth 0: main), in the tree's order
rows() {
  "$INCLPROF" report --tree "$1" 2>/dev/null | awk -v fns=" $FNS siglongjmp " '
    /Call path$/ { col = index($0, "Call path"); next }
    col && /^ *[0-9]+ / { name = substr($0, col); d = match(name, /[^ ]/) - 1; sub(/^ +/, "", name)
                          if (index(fns, " " name " ")) printf "%s:%s@%d ", name, $1, d / 2 }'
}
# sorted_rows TRACE: the same rows in name order (the aggregate's tree orders
# a function's children otherwise)
# canonical ROWS: the same tree with each node's children in name order (the
# report orders siblings by their time, which varies from run to run)
canonical() {
  python3 -c '
import sys
toks = sys.argv[1].split()
def parse(i, depth):
    kids = []
    while i < len(toks) and int(toks[i].rsplit("@", 1)[1]) == depth:
        node, i = toks[i], i + 1
        sub, i = parse(i, depth + 1)
        kids.append((node, sub))
    return kids, i
def show(kids):
    return "".join(n + " " + show(sub) for n, sub in sorted(kids))
print(show(parse(0, 0)[0]), end="")' "$1"
}
sorted_rows() { rows "$1" | tr ' ' '\n' | sort | paste -sd' ' -; }
# calls FILE: the calls between the test program's functions in a callgrind file
calls() {
  # shellcheck disable=SC2086
  python3 "$PP/libcall_counts.py" "$1" $FNS | awk -v fns=" $FNS " -F': ' '
    { n = split($2, c, ", "); out = ""
      for (i = 1; i <= n; i++) { split(c[i], w, " "); if (index(fns, " " w[2] " ")) out = out " " c[i] }
      if (out != "") print $1 ":" out }'
}

gcc -O2 -g "$SRC" -o plain || fail "longjmp.c builds"
LOOP="main:1@0 fail1:5@1 fail2:5@2 fail3:5@3 siglongjmp:5@4 "
NESTED="main:1@0 step:3@1 try_inner:3@2 deep1:3@3 deep2:3@4 siglongjmp:3@5 fail1:3@2 fail2:3@3 fail3:3@4 siglongjmp:3@5 "
SIGNAL="main:1@0 spin1:4@1 spin2:4@2 raise:4@3 on_signal:4@4 siglongjmp:4@5 "
for m in loop nested signal; do
  check_eq "$m: the plain program's own count" "recovered $(case $m in loop) echo 5 ;; nested) echo 3 ;; *) echo 4 ;; esac)" \
    "$(./plain $m)"
  valgrind --tool=callgrind --callgrind-out-file="plain_$m.cg" ./plain $m >/dev/null 2>&1 ||
    fail "callgrind runs the plain program ($m)"
done

for build in "-O2" "-O0" "-O2 -fplugin-arg-inclprof-probe-form=call"; do
  # shellcheck disable=SC2086
  gcc -g -fchecking -fplugin="$INCLPROF_PLUGIN" $build "$SRC" -o lj 2>err.txt ||
    fail "$build: longjmp.c builds with the plugin and GCC's checking: $(head -3 err.txt)"
  for m in loop nested signal; do
    rm -rf "rec_$m" && "$INCLPROF" record -o "rec_$m" ./lj $m >out.txt 2>/dev/null || fail "$build $m: record"
    check_eq "$build $m: the program's output is the plain one's" "$(./plain $m)" "$(cat out.txt)"
    case $m in loop) want=$LOOP ;; nested) want=$NESTED ;; *) want=$SIGNAL ;; esac
    check_eq "$build $m: every call at its own depth, none under a skipped frame" "$(canonical "$want")" \
      "$(canonical "$(rows "rec_$m")")"
    "$INCLPROF" export --format callgrind -o "rec_$m.cg" "rec_$m" 2>/dev/null
    check_eq "$build $m: the calls callgrind counts on the plain program" \
      "$(calls "plain_$m.cg" | grep -v '^raise:')" "$(calls "rec_$m.cg" | grep -v '^raise:')"
  done
  check "$build: the skipped frames are repairs said to be longjmp's" sh -c \
    "'$INCLPROF' report rec_loop 2>&1 | grep -q '^repairs: *15 exits reconciled (15 frames skipped by an exit or a longjmp, 0 open'"
  check "$build: the 5 siglongjmp calls are left where the longjmp landed" sh -c \
    "'$INCLPROF' report rec_loop 2>&1 | grep -q '^unwinding: *5 library call(s) left by an exception or a longjmp'"
done

# The aggregate mode folds the same landings in the process.
for m in loop nested signal; do
  rm -rf "agg_$m" && "$INCLPROF" record --aggregate -o "agg_$m" ./lj $m >/dev/null 2>&1 || fail "$m: record --aggregate"
  check_eq "--aggregate $m: the same tree" "$(sorted_rows "rec_$m")" "$(sorted_rows "agg_$m")"
done

# Where the probes are: after both returns of each sigsetjmp (logging
# runtime: L names the function the thread continues in).
pcc lj_log "$SRC" -O2 || fail "longjmp.c builds with the logging runtime"
run log ./lj_log nested >/dev/null || fail "nested runs with the logging runtime"
check_eq "nested: main lands 4 times (first return, 3 longjmps), try_inner 6 (3 first returns, 3 longjmps)" \
  "4 main|6 try_inner" "$(awk '$1 == "L" {print $2}' log | sort | uniq -c | awk '{print $1, $2}' | paste -sd'|' -)"

# vfork returns twice too, but its child must not run the runtime: no landing.
cat >vf.c <<'C'
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
  int st = 0;
  pid_t p = vfork();
  if (p == 0)
    _exit(7);
  waitpid(p, &st, 0);
  return WEXITSTATUS(st) == 7 ? 0 : 1;
}
C
pcc vf vf.c -O2 || fail "vf.c builds with the logging runtime"
run log ./vf || fail "vf runs with the logging runtime"
check_eq "vfork: no landing probe, main entered and left once" "E main|X main" \
  "$(awk '$1 ~ /^[EXL]$/ {print $1, $2}' log | paste -sd'|' -)"
done_testing
