#!/bin/sh
# convert_spool_tmpdir.sh - pprof and html with no usable TMPDIR keep the
# threads' trees in memory (as the timeline exports keep their calls):
# a session of four processes of three threads each, sampled, exported
# with TMPDIR=/nonexistent, gives the same bytes as with a usable one
# (the export failed: "could not be kept in a temporary file").
# timing: a second.
. "$INCLPROF_SRC/tests/lib.sh"
cat >spool.c <<'C'
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) static int work(int x) { return x * 3; }
__attribute__((noinline)) static int other(int x) { return work(x) + 1; }
static void *th(void *p) {
  long s = 0;
  for (int i = 0; i < 5000; i++)
    s += other(i);
  return (void *)s;
}
int main(void) {
  for (int k = 0; k < 3; k++) {
    pid_t p = fork();
    if (p == 0) {
      pthread_t t[2];
      for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, th, 0);
      for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
      _exit(0);
    }
    waitpid(p, 0, 0);
  }
  return th(0) == 0;
}
C
cc_plugin spool spool.c -O1 -pthread || { fail "build spool.c with the plugin"; exit 1; }
"$INCLPROF" record --sample-hz 997 -o data ./spool >/dev/null 2>&1
check_eq "the program's status" 0 "$?"
for args in "pprof" "pprof --merge-threads" "pprof --max-size 1K" "html"; do
  "$INCLPROF" export --format $args -o with data >/dev/null 2>&1
  check_eq "$args: with a TMPDIR, status" 0 "$?"
  TMPDIR=/nonexistent "$INCLPROF" export --format $args -o without data >without.err 2>&1
  check_eq "$args: without a TMPDIR, status" 0 "$?"
  check "$args: the same bytes" cmp -s with without
done
done_testing
