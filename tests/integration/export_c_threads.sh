#!/bin/sh
# export_c_threads.sh - a multi-threaded C program through every export format,
# each read back by an independent parser: go tool pprof's flat/cum equal the
# CSV's Exclusive/Inclusive exactly; the DevTools trace engine finds one slice
# per recorded call on every thread; callgrind_annotate's self/inclusive costs
# and totals equal ours; the folded stacks sum to the total.
. "$INCLPROF_SRC/tests/lib.sh"
. "$INCLPROF_SRC/tests/viewers/viewers.sh"

cat >threads.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static volatile long sink;
static void leaf(int n) { for (int i = 0; i < n * 200; i++) sink += i; }
static void middle(int n) { leaf(n); leaf(n + 1); }
static void *worker(void *arg) {
  int n = (int)(long)arg;
  for (int i = 0; i < 20 * n; i++) middle(n);
  usleep(1000);
  return NULL;
}
int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  middle(3);
  printf("done\n");
  return 0;
}
EOF
check "viewers installed (go, callgrind_annotate, node + trace engine)" viewers_ready
check "compile with the plugin" cc_plugin threads threads.c -O0 -pthread
check "run under inclprof record" "$INCLPROF" record ./threads
check_every_format
check_wait_columns
check "trace engine: the worker's frames are named" grep -q '"leaf"' engine.txt
check "folded: stacks start at their thread" grep -q '^thread [0-9]* ([^)]*);worker;middle;leaf ' inclprof.folded
done_testing
