#!/bin/sh
# runtime_mem_limits.sh - the runtime's memory beside a program that runs
# close to its bounds.  Under an address-space limit (ulimit -v 60000) a
# program that mallocs 1 MB blocks until malloc fails gets, recorded, within
# 12 MB of the blocks of a plain run (before: 36 MB fewer, the runtime's
# 8 MB writer stack, 16 spare buffers and a 16 MB table taking them), and
# record's summary says the runtime keeps fewer spare buffers.  A program
# with 2 000 threads alive at once has, recorded, less than 100 KB more
# resident memory per thread than in a plain run (before: 277 KB, every
# thread's buffer faulted in at its start), and every thread's calls are in
# the trace.
. "$INCLPROF_SRC/tests/lib.sh"
cat >grab.c <<'SRC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }
int main(void) {
  int n = 0;
  for (void *p; (p = malloc(1 << 20)) != NULL; n++) {
    memset(p, 1, 4096);
    for (int i = 0; i < 20000; i++) /* buffers fill: the writer works */
      work(i);
  }
  printf("%d blocks\n", n);
  return 0;
}
SRC
gcc -O2 -fplugin="$INCLPROF_PLUGIN" -o grab grab.c || { fail "build grab"; exit 1; }
plain=$(ulimit -v 60000 && ./grab)
rec=$(ulimit -v 60000 && "$INCLPROF" record -o out -- ./grab 2>rec.err)
check_eq "ulimit -v: the recorded program's status" 0 "$?"
check "ulimit -v: the program's own blocks, recorded ($rec) within 12 of the plain run's ($plain)" \
  test "${rec%% *}" -ge $((${plain%% *} - 12))
check_eq "ulimit -v: record's summary says why the runtime keeps fewer spares" \
  "inclprof: the program's memory is bounded (an address-space limit, ulimit -v): the runtime keeps 2 spare buffers instead of up to 16, and the program's threads write more of their buffers themselves" \
  "$(grep '^inclprof: the program' rec.err)"
"$INCLPROF" info out >info 2>&1
check "ulimit -v: the trace ends cleanly" grep -q '^trailer:      clean shutdown, exit reason: exit;' info

cat >many.c <<'SRC'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }
static pthread_barrier_t up, down;
static void *thr(void *a) {
  for (int i = 0; i < 100; i++)
    work(i);
  pthread_barrier_wait(&up);
  pthread_barrier_wait(&down);
  return a;
}
static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char l[256];
  long v = 0;
  while (fgets(l, sizeof l, f))
    if (!strncmp(l, "VmRSS:", 6))
      v = atol(l + 6);
  fclose(f);
  return v;
}
int main(void) {
  enum { N = 2000 };
  static pthread_t t[N];
  pthread_barrier_init(&up, 0, N + 1);
  pthread_barrier_init(&down, 0, N + 1);
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setstacksize(&a, 64 << 10);
  for (int i = 0; i < N; i++)
    if (pthread_create(&t[i], &a, thr, 0) != 0) {
      printf("thread %d not started\n", i);
      return 1;
    }
  pthread_barrier_wait(&up); /* all 2000 alive */
  long kb = rss_kb();
  pthread_barrier_wait(&down);
  for (int i = 0; i < N; i++)
    pthread_join(t[i], 0);
  printf("%ld\n", kb);
  return 0;
}
SRC
gcc -O2 -pthread -fplugin="$INCLPROF_PLUGIN" -o many many.c || { fail "build many"; exit 1; }
plain=$(./many)
rec=$("$INCLPROF" record --transitions none -o threads -- ./many 2>/dev/null)
check "2000 threads: recorded, less than 100 KB more resident memory a thread ($rec KB against $plain KB)" \
  test "$rec" -lt $((plain + 2000 * 100))
"$INCLPROF" report threads --by function >report 2>/dev/null
check "2000 threads: every thread's 100 calls in the trace" \
  awk '$NF == "work" && $1 == 200000 { found = 1 } END { exit !found }' report
done_testing
