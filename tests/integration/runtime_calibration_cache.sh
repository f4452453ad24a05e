#!/bin/sh
# runtime_calibration_cache.sh - the processes of one output directory share
# one calibration: the first leaves DIR/.calibration-KEY, the later ones of
# the same boot, runtime, clock and transition mode take the tick rate and
# the probe's cost from it (their headers carry exactly its numbers), a file
# of another key or with anything else in it is not used and is written
# anew, and another clock mode keeps a file of its own.
. "$INCLPROF_SRC/tests/lib.sh"
check "compile with the plugin" cc_plugin calls "$INCLPROF_SRC/tests/programs/runtime/thousand_calls.c" -O2
# count GLOB...: how many files the glob matched
count() { if [ -e "$1" ]; then echo $#; else echo 0; fi; }
# header_values DIR: "TICKS/S PROBE-COST" of each trace in DIR, one line each
header_values() {
  for f in "$1"/*.ipb; do
    "$INCLPROF" info "$f" | awk '/^clock:/ {t = $4} /^calibration:/ {c = $4} END {print t, c}'
  done
}

"$INCLPROF" record -o one -- sh -c './calls; ./calls; ./calls' >/dev/null 2>&1
check_eq "three processes of one session: three traces" 3 "$(count one/*.ipb)"
check_eq "and one calibration file" 1 "$(count one/.calibration-*)"
cache=$(basename one/.calibration-*)
key=${cache#.calibration-}
check_eq "all three headers carry the same tick rate and probe cost" 1 "$(header_values one | sort -u | wc -l)"
check "the file is one line: tag, version, its key and four numbers" \
  grep -Eq "^inclprof-calibration 2 $key (0x[0-9a-f.]+p[+-][0-9]+ ){3}0x[0-9a-f.]+p[+-][0-9]+\$" "one/$cache"
check_eq "the headers' tick rate is the file's" \
  "$(python3 -c 'import sys; print(round(float.fromhex(open(sys.argv[1]).read().split()[3])))' "one/$cache")" \
  "$(header_values one | head -n1 | cut -d' ' -f1)"

# a calibration planted under this key is taken as it is
mkdir planted
printf 'inclprof-calibration 2 %s 0x1p+31 0x1p+5 0x1p+2 0x1p+4\n' "$key" >"planted/$cache"
"$INCLPROF" record -o planted -- ./calls >/dev/null 2>&1
check_eq "a planted calibration: the header has its tick rate and cost (32 ticks = 14.90 ns)" \
  "2147483648 14.90" "$(header_values planted)"

# under another key (another boot) it is not used, and the right one is written
mkdir otherboot
other_key=0000000000000000${key#????????????????}
printf 'inclprof-calibration 2 %s 0x1p+31 0x1p+5 0x1p+2 0x1p+4\n' "$other_key" >"otherboot/.calibration-$other_key"
"$INCLPROF" record -o otherboot -- ./calls >/dev/null 2>&1
v=$(header_values otherboot | cut -d' ' -f1)
check "another boot's calibration is not used (measured: $v ticks/s)" test "$v" != 2147483648
check "this boot's is written beside it" test -s "otherboot/$cache"

# anything else in the file: measured again and the file written anew
mkdir damaged
printf 'inclprof-calibration 2 %s 0x1p+31 nonsense\n' "$key" >"damaged/$cache"
"$INCLPROF" record -o damaged -- ./calls >/dev/null 2>&1
v=$(header_values damaged | cut -d' ' -f1)
check "a damaged file is not used (measured: $v ticks/s)" test "$v" -gt 0 -a "$v" != 2147483648
check "and is written anew" grep -Eq "^inclprof-calibration 2 $key 0x" "damaged/$cache"

# another clock mode: a file of its own
INCLPROF_CLOCK=fast "$INCLPROF" record -o one -- ./calls >/dev/null 2>&1
check_eq "INCLPROF_CLOCK=fast in the same directory: a second calibration file" 2 \
  "$(count one/.calibration-*)"
check "the trace files of the earlier run were moved aside, the calibrations stayed" \
  test "$(count one.old/*.ipb)" = 3
done_testing
