#!/bin/sh
# runtime_file_limit.sh - a program that lowers its own file-size limit
# (RLIMIT_FSIZE) after the runtime started, as OpenSSH's rlimit sandbox
# does: the runtime's writes never pass the new limit, whose SIGXFSZ would
# kill the program.  Lowered through setrlimit, prlimit and a prlimit64
# system call to 64 KB while its calls fill the trace past that, the program
# runs to its end with the output and exit status of a plain run, and the
# trace stops at the limit, saying so.  Lowered to 0 (below the trace
# already written), it still runs to its end; the trace keeps what it held,
# and record's summary says the trace has no end (the runtime's line could
# reach neither the trace nor record's notes, both past the limit).
. "$INCLPROF_SRC/tests/lib.sh"
cat >fsize.c <<'SRC'
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }
int main(int argc, char **argv) {
  struct rlimit r = {strtoul(argv[2], 0, 10), strtoul(argv[2], 0, 10)};
  int rc = !strcmp(argv[1], "setrlimit") ? setrlimit(RLIMIT_FSIZE, &r)
           : !strcmp(argv[1], "prlimit") ? prlimit(0, RLIMIT_FSIZE, &r, NULL)
                                          : (int)syscall(SYS_prlimit64, 0, RLIMIT_FSIZE, &r, NULL);
  for (int i = 0; i < 2000000; i++)
    work(i);
  printf("limit set %d, work done\n", rc);
  return 3;
}
SRC
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o fsize fsize.c || { fail "build fsize"; exit 1; }
for how in setrlimit prlimit syscall; do
  for limit in 65536 0; do
    # output through a pipe, which no file-size limit applies to
    { ./fsize $how $limit 2>plain.err; echo $? >plain.status; } | cat >plain.out
    check_eq "$how $limit: plain run, its status" 3 "$(cat plain.status)"
    { "$INCLPROF" record -o out-$how-$limit -- ./fsize $how $limit 2>prof.err
      echo $? >prof.status; } | cat >prof.out
    check_eq "$how $limit: recorded, the program's status (not killed by SIGXFSZ)" 3 "$(cat prof.status)"
    check_eq "$how $limit: recorded, the program's output" "$(cat plain.out)" "$(cat prof.out)"
    size=$(cat out-$how-$limit/*.ipb | wc -c)
    check "$how $limit: the trace within the limit ($size bytes)" test "$size" -le 65536
    "$INCLPROF" info out-$how-$limit >info 2>&1
    if [ $limit = 0 ]; then
      check "$how $limit: the trace holds the events written before" \
        grep -q '^events: .*; 0 batches lost' info
      check "$how $limit: record's summary says the trace has no end" grep -q \
        "^inclprof record: out-$how-$limit/[0-9]*\.ipb: the trace has no end: its process ended without writing its last records (killed, or under a file-size limit below its trace)" prof.err
    else
      check "$how $limit: the trace says recording stopped at the file size limit" \
        grep -q "^trailer: .*recording stopped early: the trace reached the process's file size limit (ulimit -f)" info
    fi
  done
done
done_testing
