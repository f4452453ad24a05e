#!/bin/sh
# runtime_alloc_lib.sh - the writer thread with an allocator library:
#  - a call-dense program (tests/programs/runtime/lib_alloc.c) linked with
#    the system's jemalloc, alone and with 2 threads, prints under `record`
#    what it prints plain, its writer thread takes full buffers (`info`'s
#    writer: line, and no line on why it took none), and the trace counts
#    every call of its loop;
#  - the same program with malloc & co. from a library the runtime does not
#    know as thread-safe (libmyalloc.so, fwd_alloc.c), or from one named
#    libjemalloc.so.2 but built with the plugin, gets no writer thread, and
#    `info` says why; that library built without the plugin gets one.
. "$INCLPROF_SRC/tests/lib.sh"
need python3
P="$INCLPROF_SRC/tests/programs/runtime"
Q="$INCLPROF_SRC/scripts/csv_query.py"
gcc -O2 -Wall -Werror -fplugin="$INCLPROF_PLUGIN" "$P/lib_alloc.c" -o lib_je -pthread -ldl \
  -Wl,--no-as-needed -ljemalloc ||
  { fail "build lib_alloc.c with -ljemalloc (libjemalloc-dev: run scripts/deps.sh test as root)"; exit 1; }
mkdir probed plain mine
gcc -O2 -Wall -Werror -shared -fPIC -fplugin="$INCLPROF_PLUGIN" -Wl,-soname,libjemalloc.so.2 \
  "$P/fwd_alloc.c" -o probed/libjemalloc.so.2 &&
  gcc -O2 -Wall -Werror -shared -fPIC -Wl,-soname,libjemalloc.so.2 "$P/fwd_alloc.c" \
    -o plain/libjemalloc.so.2 &&
  gcc -O2 -Wall -Werror -shared -fPIC -Wl,-soname,libmyalloc.so "$P/fwd_alloc.c" -o mine/libmyalloc.so ||
  { fail "build the allocator libraries"; exit 1; }
for lib in probed plain mine; do
  name=libjemalloc.so.2
  [ $lib = mine ] && name=libmyalloc.so
  gcc -O2 -Wall -Werror -fplugin="$INCLPROF_PLUGIN" "$P/lib_alloc.c" -o lib_$lib -pthread -ldl \
    -Wl,--no-as-needed -L$lib -l:$name -Wl,-rpath,"$T_DIR/$lib" ||
    { fail "build lib_alloc.c with $lib/$name"; exit 1; }
done


for threads in 0 2; do
  plain=$(./lib_je 200 20000 $threads)
  check_eq "jemalloc, $threads threads: malloc is jemalloc's" "malloc from libjemalloc.so.2" \
    "$(echo "$plain" | head -n1)"
  rec=$("$INCLPROF" record -o je$threads -- timeout -k 5 120 ./lib_je 200 20000 $threads 2>/dev/null)
  check_eq "jemalloc, $threads threads: recorded output is the plain run's" "$plain" "$rec"
  "$INCLPROF" info je$threads >je$threads.info 2>&1
  check "jemalloc, $threads threads: the writer thread takes full buffers, and info has no line on why it took none" \
    sh -c "grep -Eq \"^writer: +[1-9][0-9]* full buffers written by the runtime's writer thread\" je$threads.info &&
      ! grep -q 'the writer thread took no buffer' je$threads.info"
  "$INCLPROF" export --format csv -o je$threads.csv je$threads 2>/dev/null
  check_eq "jemalloc, $threads threads: the trace counts every call of the loop" \
    "$((200 * 20000 * (threads + 1)))" "$(python3 "$Q" je$threads.csv '^step$' calls)"
done

for lib in probed mine; do
  plain=$(./lib_$lib 200 20000 0)
  rec=$("$INCLPROF" record -o $lib -- timeout -k 5 120 ./lib_$lib 200 20000 0 2>/dev/null)
  check_eq "$lib: recorded output is the plain run's" "$plain" "$rec"
  "$INCLPROF" info $lib >$lib.info 2>&1
  check "$lib: no writer thread, and info says why" \
    sh -c "grep -Eq \"^writer: +0 full buffers written by the runtime's writer thread\" $lib.info &&
      grep -q \"^ *the writer thread took no buffer: .*malloc is the program's own\" $lib.info"
done
"$INCLPROF" record -o plain -- ./lib_plain 200 20000 0 >/dev/null 2>&1
"$INCLPROF" info plain >plain.info 2>&1
check "a libjemalloc.so.2 built without the plugin: the writer thread takes full buffers" \
  grep -Eq "^writer: +[1-9][0-9]* full buffers written by the runtime's writer thread" plain.info
done_testing
