#!/bin/sh
# plugin_fdo.sh - profile feedback across builds with and without the plugin:
# the passes before GCC's "profile" pass run as without the plugin under
# -fprofile-generate and -fprofile-use, so a profile of the plain build is
# used by a build with the plugin (tail-recursion=keep used to change the
# control flow first: "number of counters in profile data ... does not
# match"), and a profile of the plugin's build by a plain one.  The program
# built with the plugin and the plain profile prints the same recorded, and
# every function's calls equal callgrind's on the plain profile-use build.
. "$INCLPROF_SRC/tests/lib.sh"
need valgrind python3
PP="$INCLPROF_SRC/tests/programs/plugin"
counts() { python3 "$PP/libcall_counts.py" "$1" main factorial; }
PLUGIN="-fplugin=$INCLPROF_PLUGIN"

# gen [PLUGIN]: the profile of a -fprofile-generate build (with PLUGIN's
# options), as fdo.gcda
gen() {
  rm -f gen.gcda fdo.gcda
  gcc -O2 -fprofile-generate "$@" -c "$PP/fdo_tailcall.c" -o gen.o && gcc -fprofile-generate gen.o -o gen &&
    ./gen >gen.out && cp gen.gcda fdo.gcda
}
# use NAME [PLUGIN]: NAME built with -fprofile-use of fdo.gcda (errors in NAME.err)
use() {
  name=$1; shift
  cp fdo.gcda "$name.gcda" &&
    gcc -O2 -fprofile-use "$@" -c "$PP/fdo_tailcall.c" -o "$name.o" 2>"$name.err" && gcc "$name.o" -o "$name"
}

gen || fail "a profile of the plain build"
use plain || fail "the plain build with its profile: $(head -n 1 plain.err)"
use inst "$PLUGIN" || fail "the plugin's build with the plain build's profile: $(head -n 1 inst.err)"
check "the plugin's build finds the profile fits (no warning)" test ! -s inst.err
./plain >plain.out || fail "the plain profile-use build fails"
check_eq "the program's own result" "479001600" "$(cat plain.out)"
"$INCLPROF" record -o rec ./inst >inst.out 2>record.err || fail "record: $(tail -n 1 record.err)"
check "recorded, the same output as the plain build" cmp plain.out inst.out
LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file=plain.cg ./plain >/dev/null 2>valgrind.err ||
  fail "callgrind on the plain build: $(tail -n 1 valgrind.err)"
"$INCLPROF" export --format callgrind -o inst.cg rec 2>/dev/null || fail "export"
check_eq "every function's calls as callgrind counts them on the plain build" "$(counts plain.cg)" "$(counts inst.cg)"
check_eq "with the profile, factorial is the loop GCC's early pass makes of it" "factorial: " \
  "$(counts inst.cg | grep '^factorial:')"

gen "$PLUGIN" || fail "a profile of the plugin's build"
use plain2 || fail "the plain build with the plugin's build's profile: $(head -n 1 plain2.err)"
check "the plain build finds the plugin's profile fits (no warning)" test ! -s plain2.err
use inst2 "$PLUGIN" || fail "the plugin's build with its own profile: $(head -n 1 inst2.err)"

# without profile feedback the recursion is kept (tail-recursion=keep)
gcc -O2 "$PLUGIN" "$PP/fdo_tailcall.c" -o keep || fail "build without profile feedback"
rm -rf rec && "$INCLPROF" record -o rec ./keep >/dev/null 2>&1 && "$INCLPROF" export --format callgrind -o keep.cg rec 2>/dev/null ||
  fail "record the build without profile feedback"
check_eq "without profile feedback factorial calls itself 11 times" "factorial: 11 factorial" \
  "$(counts keep.cg | grep '^factorial:')"
done_testing
