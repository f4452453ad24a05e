#!/bin/sh
# sampling_independent.sh - each sample lands independently of the one
# before, also on a program whose loop keeps step with the sampler: in
# tests/programs/sampling/lockstep.c every round is exactly 1/8 of the mean
# sampling period of the thread's CPU time, heavy() taking 3/4 of it.  A
# sampler with a fixed period finds such a loop at nearly the same point
# sample after sample (consecutive samples in light() then follow each other
# half the time or more, against 1/4 for independent ones, and the shares
# wander by many points from run to run).  Three quick runs: in each, the
# share of samples in heavy() is within 8 points of 75 %, and a sample in
# light() is followed by one in light() at most 45 % of the time.  The
# stacks of the samples, in the order they were taken, come from
# sample_stacks.c.  Then the same on proportions.c (heavy() 3 units of work
# a round, light() 1).
# timing: the checks are about proportions of some 500 samples (standard
# deviation under 2 points and 0.04), far inside their margins.
. "$INCLPROF_SRC/tests/lib.sh"
P="$INCLPROF_SRC/tests/programs/sampling"
check "compile lockstep with the plugin" gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/lockstep.c" -o lockstep
check "compile proportions with the plugin" gcc -O2 -fplugin="$INCLPROF_PLUGIN" "$P/proportions.c" -o proportions
check "build the sample reader" gcc -std=c11 -D_GNU_SOURCE -I"$INCLPROF_LIBDIR/gen" \
  -I"$INCLPROF_SRC/include/inclprof" -I"$INCLPROF_SRC/convert" -o sample_stacks \
  "$INCLPROF_SRC/tests/integration/sample_stacks.c" "$INCLPROF_LIBDIR/libipconvert.a" -lprotobuf-c -ldeflate

# The traces carry their Function records themselves (INCLPROF_TABLES=inline):
# sample_stacks.c reads one trace file, not the directory's table file.
export INCLPROF_TABLES=inline
# judge NAME: the samples of out-NAME in heavy() and light(), in order:
# "N SHARE_HEAVY P_LIGHT_AFTER_LIGHT"
judge() {
  ./sample_stacks out-"$1"/*.ipb | awk '
    /;heavy(;|$)/ { c = "h" } /;light(;|$)/ { c = "l" } !/;(heavy|light)(;|$)/ { next }
    { n++; h += c == "h"; if (prev == "l") { al++; ll += c == "l" } prev = c }
    END { printf "%d %.1f %.3f\n", n, n ? 100 * h / n : 0, al ? ll / al : 0 }'
}

for i in 1 2 3; do
  "$INCLPROF" record -o out-lock$i --sample-hz 2000 -- ./lockstep 2000 8 0.3 >/dev/null 2>&1
  check_eq "lockstep run $i: exit status" 0 "$?"
  set -- $(judge lock$i)
  check "lockstep run $i: hundreds of samples (${1:-0})" test "${1:-0}" -ge 300
  check_near "lockstep run $i: heavy's share of the samples" 75 "${2:-0}" 8
  check "lockstep run $i: light after light ${3:-?} of the time, at most 0.45 (independent: 0.25)" \
    awk -v p="${3:-1}" 'BEGIN { exit !(p <= 0.45) }'
done

"$INCLPROF" record -o out-prop --sample-hz 2000 -- ./proportions 4000 >/dev/null 2>&1
check_eq "proportions: exit status" 0 "$?"
set -- $(judge prop)
check "proportions: hundreds of samples (${1:-0})" test "${1:-0}" -ge 300
check "proportions: light after light ${3:-?} of the time, at most 0.45 (independent: 0.25)" \
  awk -v p="${3:-1}" 'BEGIN { exit !(p <= 0.45) }'
done_testing
