#!/bin/sh
# runtime_nproc.sh - a program run as user nobody under a low limit on the
# user's threads and processes (ulimit -u, RLIMIT_NPROC, which counts the
# runtime's threads too): the runtime starts no thread of its own (writer,
# control), so the program starts as many threads as in a plain run (before,
# the writer and the control thread took two of them), and its trace holds
# every call, the writer's work done on its threads.
. "$INCLPROF_SRC/tests/lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! command -v prlimit >/dev/null; then
  echo "skip: needs root, setpriv and prlimit to run a program as user nobody under a limit"
  exit 0
fi
gid=$(id -g nobody)
as_nobody() { setpriv --reuid=nobody --regid="$gid" --clear-groups "$@"; }
chmod 755 "$T_DIR"
mkdir u && chown nobody u
cat >threads.c <<'SRC'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }
static void *thr(void *a) {
  for (int i = 0; i < 1000; i++)
    work(i);
  sleep(1); /* alive while the next ones start */
  return a;
}
int main(void) {
  for (int i = 0; i < 100000; i++) /* buffers fill: a writer thread would start */
    work(i);
  usleep(20000); /* the control thread would have started */
  pthread_t t[16];
  int n = 0;
  while (n < 16 && pthread_create(&t[n], 0, thr, 0) == 0)
    n++;
  for (int k = 0; k < n; k++)
    pthread_join(t[k], 0);
  printf("%d threads\n", n);
  return 0;
}
SRC
gcc -O2 -pthread -fplugin="$INCLPROF_PLUGIN" -o threads threads.c || { fail "build threads"; exit 1; }
# nobody's other threads count too (a grant server of an earlier test may
# still be ending): each run's limit is nobody's threads then plus 6, and a
# run during which their number changed is run again.
nobody_threads() { ps -u nobody -L -o tid= | wc -l; }
# room CMD...: CMD's output under that limit (a run again starts with no
# trace of the one before)
room() {
  for try in 1 2 3 4 5; do
    rm -rf "$T_DIR/u/out"
    before=$(nobody_threads)
    limit=$((before + 6))
    out=$(as_nobody prlimit --nproc=$limit:$limit "$@" 2>&1)
    [ "$(nobody_threads)" = "$before" ] && break
    sleep 1
  done
  echo "$out"
}
plain=$(room ./threads)
rec=$(room env INCLPROF_OUTPUT="$T_DIR/u/out" LD_PRELOAD="$INCLPROF_LIBDIR/libinclprof.so" ./threads)
check "plain run under RLIMIT_NPROC (nobody's threads + 6): some threads start ($plain)" test "${plain%% *}" -ge 2
check_eq "recorded: as many threads start as in the plain run" "$plain" "$rec"
"$INCLPROF" report u/out --by function 2>/dev/null >report
n=${rec%% *}
check "every work() call recorded" \
  awk -v n=$((100000 + n * 1000)) '$NF == "work" && $1 == n { found = 1 } END { exit !found }' report
"$INCLPROF" info u/out >info 2>&1
check "the trace ends cleanly" grep -q '^trailer:      clean shutdown, exit reason: exit;' info
check "no buffer written by a writer thread" grep -q '^writer:       0 full buffers written by the runtime' info
done_testing
