#!/bin/sh
# runtime_own_alloc.sh - the runtime never calls the program's allocator:
#  - a program with its own counting allocator (tests/programs/runtime/
#    own_alloc.c), alone and with 4 threads, prints under `record` exactly
#    what it prints plain (its calls of malloc, calloc, realloc, free, the
#    aligned forms), and the trace counts its allocator's calls as it does;
#  - the two shapes of GCC's tree-prof tests with a program-defined malloc
#    (a static pool that traps on re-entry; a wrapper of libc's malloc found
#    with dlsym(RTLD_NEXT)) run to their plain exit status and output;
#  - filling buffers, it gets no writer thread, and `info` says why and
#    that INCLPROF_WRITER=thread starts one (which then takes the buffers);
#  - asking for the control thread (INCLPROF_CTL=1) costs exactly the one
#    calloc glibc makes for a new thread's TLS vector, as documented;
#  - the runtime library takes none of malloc & co. from libc.
. "$INCLPROF_SRC/tests/lib.sh"
need python3
P="$INCLPROF_SRC/tests/programs/runtime"
Q="$INCLPROF_SRC/scripts/csv_query.py"
gcc -O2 -Wall -Werror -fplugin="$INCLPROF_PLUGIN" "$P/own_alloc.c" -o own_alloc -pthread &&
  gcc -O2 -Wall -Werror -fplugin="$INCLPROF_PLUGIN" "$P/alloc_pool.c" -o alloc_pool &&
  gcc -O2 -Wall -Werror -fplugin="$INCLPROF_PLUGIN" "$P/alloc_next.c" -o alloc_next -ldl ||
  { fail "build the allocator programs"; exit 1; }

# field NAME LINE: the value of NAME=value in LINE
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

for threads in 0 4; do
  plain=$(./own_alloc 2000 $threads)
  rec=$("$INCLPROF" record -o out$threads -- timeout -k 5 120 ./own_alloc 2000 $threads 2>/dev/null)
  check_eq "own allocator, $threads threads: recorded output is the plain run's" "$plain" "$rec"
  "$INCLPROF" export --format csv -o rows$threads.csv out$threads 2>/dev/null
  want=$(($(field malloc "$plain") + $(field calloc "$plain") + $(field realloc "$plain") + $(field aligned "$plain")))
  check_eq "own allocator, $threads threads: the trace counts the program's allocations" "$want" \
    "$(python3 "$Q" rows$threads.csv '^take$' calls)"
done

for prog in alloc_pool alloc_next; do
  plain=$(./$prog)
  plain_rc=$?
  rec=$("$INCLPROF" record -o $prog.out -- timeout -k 5 60 ./$prog 2>/dev/null)
  check_eq "$prog: exit status under record" "$plain_rc" "$?"
  check_eq "$prog: output under record" "$plain" "$rec"
done

# A program that fills buffers with its own allocator: no writer thread,
# and info says why and what starts one; INCLPROF_WRITER=thread does.
"$INCLPROF" record -o fill.out -- ./own_alloc 50000 0 >/dev/null 2>&1
"$INCLPROF" info fill.out >fill.info 2>&1
check "own allocator: info says why the writer took no buffer and what starts it" \
  grep -q "^ *the writer thread took no buffer: .*malloc is the program's own.*INCLPROF_WRITER=thread starts it" fill.info
INCLPROF_WRITER=thread "$INCLPROF" record -o fill-thread.out -- ./own_alloc 50000 0 >/dev/null 2>&1
"$INCLPROF" info fill-thread.out >fill-thread.info 2>&1
check "own allocator, INCLPROF_WRITER=thread: the writer takes buffers, and info has no such line" \
  sh -c "grep -Eq '^writer: +[1-9][0-9]* full buffers written by the runtime' fill-thread.info &&
    ! grep -q 'the writer thread took no buffer' fill-thread.info"

plain=$(./own_alloc 100 0)
rec=$(INCLPROF_CTL=1 "$INCLPROF" record -o ctl.out -- timeout -k 5 60 ./own_alloc 100 0 2>/dev/null)
check_eq "INCLPROF_CTL=1: the control thread's creation is one calloc" \
  "$(($(field calloc "$plain") + 1))" "$(field calloc "$rec")"
check_eq "INCLPROF_CTL=1: nothing else changes" "$(field malloc "$plain") $(field free "$plain")" \
  "$(field malloc "$rec") $(field free "$rec")"

taken=$(nm -D --undefined-only "$INCLPROF_LIBDIR/libinclprof.so" | awk '{ sub(/@.*/, "", $2); print $2 }' |
  grep -Ex 'malloc|calloc|realloc|free|strdup|strndup|aligned_alloc|posix_memalign|memalign|valloc|qsort|fopen|fdopen|opendir|asprintf|vasprintf|getline|fprintf|printf|puts|fputs|fwrite|dlopen|dlerror' |
  paste -sd' ' -)
check_eq "libinclprof.so takes no allocating libc function" "" "$taken"
done_testing
