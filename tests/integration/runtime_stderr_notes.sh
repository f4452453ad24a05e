#!/bin/sh
# runtime_stderr_notes.sh - under `inclprof record` the runtime says nothing
# on the program's stderr, which a parent may parse: recording stopped at
# --max-size leaves the program's stderr byte for byte that of a plain run,
# and record's summary names the stop of each of its two processes; a
# setting the runtime does not understand is named once in record's summary
# and not on the program's stderr.  Without record (the library
# preloaded) the same lines stay on the program's stderr.
. "$INCLPROF_SRC/tests/lib.sh"
cat >talk.c <<'SRC'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }
int main(void) {
  fprintf(stderr, "talk: start\n");
  pid_t pid = fork();
  if (pid > 0)
    waitpid(pid, 0, 0);
  for (int i = 0; i < 1000000; i++)
    work(i);
  fprintf(stderr, "talk: %s done\n", pid ? "parent" : "child");
  return 0;
}
SRC
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o talk talk.c || { fail "build talk"; exit 1; }
./talk 2>plain.err
check_eq "plain run: its stderr" "talk: start
talk: child done
talk: parent done" "$(cat plain.err)"

# the program's stderr apart from record's: a file, as a parent's pipe would be
"$INCLPROF" record -o out --max-size 100K -- sh -c 'exec ./talk 2>prog.err' 2>rec.err
check_eq "max-size: the program's status" 0 "$?"
check "max-size: the program's stderr is that of a plain run, byte for byte" cmp plain.err prog.err
check_eq "max-size: no line of the runtime's on the program's stderr" 0 \
  "$(grep -c '^inclprof' prog.err)"
check_eq "max-size: record's summary names the stop of each process" 2 \
  "$(grep -c '^inclprof record: out/[0-9]*\.ipb: recording stopped early: the trace reached its size limit (INCLPROF_MAX_SIZE=100K), after [0-9]* events; the trace before that is complete$' rec.err)"

INCLPROF_CLOCK=slow "$INCLPROF" record -o out2 -- sh -c 'exec ./talk 2>prog.err' 2>rec.err
check "a bad setting: the program's stderr is that of a plain run, byte for byte" \
  cmp plain.err prog.err
check_eq "a bad setting: named once in record's summary" \
  "inclprof: INCLPROF_CLOCK='slow' is not fenced, fast, rdtscp or exits; using fenced
inclprof: 2 trace files written to out2/ (status 0)" "$(cat rec.err)"

# without record: the lines on the program's stderr, one per process
INCLPROF_OUTPUT=out3 INCLPROF_MAX_SIZE=100K LD_PRELOAD="$INCLPROF_LIBDIR/libinclprof.so" ./talk 2>prog.err
check_eq "preloaded: each process's stop on its stderr" 2 \
  "$(grep -c '^inclprof: recording stopped: the trace reached its size limit (INCLPROF_MAX_SIZE=100K) (.*); after .* events; the trace up to there is complete; the program continues unprofiled$' prog.err)"
done_testing
