#!/bin/sh
# runtime_own_libc.sh - the runtime never calls the program's own memory and
# string functions:
#  - a program that defines memmove, memcpy, memset, strlen, strcmp,
#    snprintf and vsnprintf itself, each counting its calls
#    (tests/programs/runtime/own_libc.c),
#    built at -O0 and -O2, prints under `record` (the writer thread, and
#    INCLPROF_WRITER=inline, which moves the events signal handlers append
#    during a flush with memmove) exactly what it prints plain, with the same
#    exit status: its own counts unchanged (the runtime, protobuf-c and
#    libdeflate made no call of them), and the profile counts each of the
#    first five (instrumented) as the program does;
#  - the same program linked with libinclprof.a, where the runtime's calls
#    do reach the program's functions (docs/runtime.md, "Memory"), with the
#    writer thread and inline: its flushes end (the move of the events
#    appended meanwhile calls the program's instrumented memmove, which
#    appends events each time; a probe in a function the flush calls fills
#    the buffer and asks for a flush of its own), and the sum and the
#    program's check are the plain run's;
#  - libinclprof.so imports none of the mem* and str* functions, nor
#    snprintf or vsnprintf.
. "$INCLPROF_SRC/tests/lib.sh"
need python3
P="$INCLPROF_SRC/tests/programs/runtime/own_libc.c"
Q="$INCLPROF_SRC/scripts/csv_query.py"
fns="memmove memcpy memset strlen strcmp"

# field NAME LINE: the value of NAME=value in LINE
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

for opt in -O0 -O2; do
  gcc $opt -Wall -Werror -fplugin="$INCLPROF_PLUGIN" "$P" -o own_libc$opt ||
    { fail "build own_libc.c at $opt"; continue; }
  plain=$(./own_libc$opt)
  plain_rc=$?
  check_eq "$opt: the plain run checks its results" "0 0" "$plain_rc $(field wrong "$plain")"
  for writer in auto inline; do
    out=out$opt-$writer
    rec=$(INCLPROF_WRITER=$writer "$INCLPROF" record -o $out -- timeout -k 5 120 ./own_libc$opt 2>/dev/null)
    check_eq "$opt, writer $writer: exit status under record" "$plain_rc" "$?"
    check_eq "$opt, writer $writer: output under record (the program's own counts)" "$plain" "$rec"
    "$INCLPROF" export --format csv -o $out.csv $out 2>/dev/null
    want="" got=""
    for f in $fns; do
      want="$want $f=$(field $f "$plain")"
      got="$got $f=$(python3 "$Q" $out.csv "^$f\$" calls)"
    done
    check_eq "$opt, writer $writer: the profile's calls of the five are the program's" "$want" "$got"
  done
done

gcc -O2 -Wall -Werror -fplugin="$INCLPROF_PLUGIN" "$P" -o own_libc_linked \
  -Wl,--whole-archive "$INCLPROF_LIBDIR/libinclprof.a" -Wl,--no-whole-archive \
  $(pkg-config --libs libprotobuf-c) -ldeflate -lpthread -ldl ||
  fail "build own_libc.c with libinclprof.a"
plain=$(./own_libc-O2)
for writer in auto inline; do
  rec=$(INCLPROF_OUTPUT=linked-$writer INCLPROF_WRITER=$writer timeout -k 5 60 ./own_libc_linked 2>/dev/null)
  check_eq "libinclprof.a, writer $writer: flushes through the program's functions end" "0" "$?"
  check_eq "libinclprof.a, writer $writer: the sum and the program's check are the plain run's" \
    "$(field sum "$plain") 0" "$(field sum "$rec") $(field wrong "$rec")"
done

taken=$(nm -D --undefined-only "$INCLPROF_LIBDIR/libinclprof.so" | awk '{ sub(/@.*/, "", $2); print $2 }' |
  grep -E '^(mem|str|bcmp|bcopy|bzero|stp|wmem|wcs)|^v?snprintf$' | paste -sd' ' -)
check_eq "libinclprof.so takes no mem* or str* function, snprintf or vsnprintf from libc" "" "$taken"
done_testing
