#!/bin/sh
# runtime_fd_tight.sh - a program started under a descriptor limit with no
# room above it (ulimit -n 12 or 20 sets the hard limit too): the runtime's
# descriptors then take numbers of the program's own range, and it opens
# only the trace's when fewer than 64 would stay free for the program (not
# the kevents keepers, the control socket or a thread's events).  The
# program's first open() gets the number of a plain run's, and it can open
# all but one of the descriptors a plain run opens; its trace is complete.
. "$INCLPROF_SRC/tests/lib.sh"
cat >fdprobe.c <<'SRC'
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }
static void *thr(void *a) {
  for (int i = 0; i < 1000; i++)
    work(i);
  return a;
}
int main(void) {
  for (int i = 0; i < 1000; i++)
    work(i);
  usleep(20000); /* the control socket would be bound meanwhile */
  pthread_t t;
  pthread_create(&t, 0, thr, 0);
  pthread_join(t, 0);
  int first = -1, n = 0, fd;
  while ((fd = open("/dev/null", O_RDONLY)) >= 0) {
    if (first < 0)
      first = fd;
    n++;
  }
  printf("%d %d\n", first, n);
  return 0;
}
SRC
gcc -O2 -pthread -fplugin="$INCLPROF_PLUGIN" -o fdprobe fdprobe.c || { fail "build fdprobe"; exit 1; }
for limit in 12 20; do
  plain=$(sh -c "ulimit -n $limit; ./fdprobe")
  rec=$(sh -c "ulimit -n $limit; \"$INCLPROF\" record -o out-$limit -- ./fdprobe 2>rec.err")
  first=${plain% *} n=${plain#* }
  check "ulimit -n $limit: plain run, its first open() and how many it opens ($plain)" \
    test "$first" -ge 3 -a "$n" -ge 4
  check_eq "ulimit -n $limit: recorded, the first open() as plain, one descriptor fewer (the trace's)" \
    "$first $((n - 1))" "$rec"
  "$INCLPROF" report out-$limit --by function 2>/dev/null >report
  check "ulimit -n $limit: every work() call recorded" \
    awk '$NF == "work" && $1 == 2000 { found = 1 } END { exit !found }' report
  "$INCLPROF" info out-$limit >info 2>&1
  check "ulimit -n $limit: the trace ends cleanly" grep -q '^trailer:      clean shutdown, exit reason: exit;' info
done
done_testing
