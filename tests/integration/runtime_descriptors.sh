#!/bin/sh
# runtime_descriptors.sh - the runtime's descriptors stay out of the
# program's way (tests/programs/runtime/fd_program.c): a program started
# with stdout closed still finds descriptor 1 closed and its first open()
# gets 1, one started normally gets 3, as in a plain run; a program that
# closes every descriptor (closefrom, close_range, close_range through
# syscall(), or a system call of its own that no library sees) and takes
# numbers again keeps every one of them open after a recorded thread ends
# (the runtime closes no number it does not own), and its trace is complete,
# every work() call counted.
. "$INCLPROF_SRC/tests/lib.sh"
q() { python3 "$INCLPROF_SRC/scripts/csv_query.py" "$@"; }
gcc -O2 -pthread -fplugin="$INCLPROF_PLUGIN" -o fd_program \
  "$INCLPROF_SRC/tests/programs/runtime/fd_program.c" || { fail "build fd_program"; exit 1; }

./fd_program lowest 2>plain.err
"$INCLPROF" record -o out-lowest -- ./fd_program lowest 2>prof.err
check_eq "stdout open: the first open() gets 3, as in a plain run" \
  "descriptor 1 open, first open 3" "$(head -1 prof.err)"
check_eq "  (the plain run)" "descriptor 1 open, first open 3" "$(cat plain.err)"
./fd_program lowest >&- 2>plain.err
"$INCLPROF" record -o out-closed -- ./fd_program lowest >&- 2>prof.err
check_eq "stdout closed: descriptor 1 stays closed and the first open() gets it" \
  "descriptor 1 closed, first open 1" "$(head -1 prof.err)"
check_eq "  (the plain run)" "descriptor 1 closed, first open 1" "$(cat plain.err)"

for how in closefrom close_range syscall raw; do
  ./fd_program $how >plain.out 2>&1
  check_eq "$how: plain run, its status" 0 "$?"
  check "$how: plain run, every number taken still open ($(cat plain.out))" \
    awk '{ exit !($2 + 0 == $5 + 0 && $2 > 0) }' plain.out
  "$INCLPROF" record -o out-$how -- ./fd_program $how >prof.out 2>prof.err
  check_eq "$how: recorded, the program's status" 0 "$?"
  if [ "$how" = raw ]; then
    # The runtime notices its trace's descriptor closed only at its next
    # write, which may fall in the program's loop over free numbers: the
    # trace opened again holds the first free number from 900 up, which
    # this program would have taken next (one number, docs/limits.md).
    check "$how: recorded, every number it took is still open, the write and the work as plain ($(cat prof.out); plain: $(cat plain.out))" \
      awk -v p="$(cat plain.out)" '{ n = split(p, q, " ");
        exit !($2 + 0 == $5 + 0 && $2 + 1 >= q[2] + 0 && $2 + 0 <= q[2] + 0 && $0 ~ /write ok, work/ && $NF == q[n]) }' prof.out
  else
    check_eq "$how: recorded, the program's output: every number it took is still open" \
      "$(cat plain.out)" "$(cat prof.out)"
  fi
  check_eq "$how: stderr is record's summary only" \
    "inclprof: 1 trace file written to out-$how/ (status 0)" "$(cat prof.err)"
  "$INCLPROF" export --format csv -o $how.csv out-$how >/dev/null 2>&1 ||
    { fail "$how: export the trace"; continue; }
  check_eq "$how: every work() call recorded" \
    "$(sed -n 's/.*work \([0-9]*\)$/\1/p' plain.out)" "$(q $how.csv '^work$' calls)"
  "$INCLPROF" info out-$how >info 2>&1
  check "$how: the trace ends cleanly" grep -q '^trailer:      clean shutdown, exit reason: exit;' info
done
done_testing
