#!/bin/sh
# runtime_tsc_off.sh - a program that disables rdtsc in a thread
# (prctl(PR_SET_TSC, PR_TSC_SIGSEGV), with prctl() or a prctl system call
# through syscall()), after which rdtsc there raises SIGSEGV, as it does in
# the threads that thread starts later and in its fork children.  The thread
# stops recording just before: the recorded run's status and output are the
# plain run's (the old runtime died of SIGSEGV at the next probe), the trace
# holds exactly that thread's calls before the prctl and none of its calls,
# its later thread's or its fork child's after, and record's summary, info
# and report's header say why it stopped.  From another thread, the
# program's main thread records on; with sampling, no sample is taken on the
# stopped thread; with rdtsc enabled again (PR_TSC_ENABLE) the thread stays
# stopped and the thread it starts then records.  A runtime that starts on
# a thread without rdtsc leaves the program unprofiled, saying why.
. "$INCLPROF_SRC/tests/lib.sh"
cat >tscoff.c <<'SRC'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void before(int i) { sink += i; }
__attribute__((noinline)) void after(int i) { sink += i; }
__attribute__((noinline)) void in_thread(int i) { sink += i; }
__attribute__((noinline)) void in_child(int i) { sink += i; }
static void *thr(void *a) {
  for (int i = 0; i < 100; i++)
    in_thread(i);
  return a;
}
static int disable(const char *how) {
  return !strcmp(how, "syscall") ? (int)syscall(SYS_prctl, PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0)
                                 : prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
}
static void *disabler(void *a) {
  for (int i = 0; i < 300; i++)
    before(i);
  long rc = disable("prctl");
  for (int i = 0; i < 200; i++)
    after(i);
  pthread_t t;
  pthread_create(&t, 0, thr, 0);
  pthread_join(t, 0);
  return (void *)rc;
}
int main(int argc, char **argv) {
  (void)argc;
  int rc = 0, tsc = -1;
  if (!strcmp(argv[1], "thread")) { /* another thread disables it; main records on */
    pthread_t t;
    void *r;
    pthread_create(&t, 0, disabler, 0);
    pthread_join(t, &r);
    rc = (int)(long)r;
    for (int i = 0; i < 50; i++)
      after(i);
  } else {
    for (int i = 0; i < 300; i++)
      before(i);
    rc = disable(argv[1]);
    if (!strcmp(argv[1], "enable")) /* the thread stays stopped; its next thread records */
      prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0);
    for (int i = 0; i < 200; i++)
      after(i);
    pthread_t t;
    pthread_create(&t, 0, thr, 0);
    pthread_join(t, 0);
    pid_t c = fork();
    if (c == 0) {
      for (int i = 0; i < 10; i++)
        in_child(i);
      _exit(prctl(PR_GET_TSC, &tsc, 0, 0, 0) == 0 && tsc == PR_TSC_SIGSEGV ? 7 : 1);
    }
    int st;
    waitpid(c, &st, 0);
    printf("child status %d\n", WEXITSTATUS(st));
  }
  prctl(PR_GET_TSC, &tsc, 0, 0, 0);
  printf("%s: disabled %d, now %d\n", argv[1], rc, tsc);
  return 0;
}
SRC
gcc -O2 -pthread -fplugin="$INCLPROF_PLUGIN" -o tscoff tscoff.c || { fail "build tscoff"; exit 1; }
./tscoff prctl >/dev/null 2>&1 || { ok "# SKIP: PR_SET_TSC is not available here"; exit 0; }
# calls of a function in report's table (0 without a row)
calls() { awk -v f="$1" '$NF == f { n = $1 } END { print n + 0 }' report; }
for how in prctl syscall thread sampled enable; do
  arg=$how opt=
  [ $how = sampled ] && arg=prctl opt="--sample-hz 5000"
  ./tscoff $arg >plain.out 2>&1
  check_eq "$how: plain run, its status" 0 "$?"
  # shellcheck disable=SC2086 # opt: none or two words
  "$INCLPROF" record -o out-$how $opt -- ./tscoff $arg >prof.out 2>prof.err
  check_eq "$how: recorded, the program's status (not killed by SIGSEGV)" 0 "$?"
  check_eq "$how: recorded, the program's output" "$(cat plain.out)" "$(cat prof.out)"
  check "$how: record's summary says why the thread stopped" \
    grep -q 'stopped recording before it ended: the program disabled rdtsc (PR_SET_TSC) at' prof.err
  "$INCLPROF" report out-$how --by function >report 2>&1
  check_eq "$how: the calls before the prctl, all recorded" 300 "$(calls before)"
  traces=1
  if [ $arg = enable ]; then
    check_eq "$how: rdtsc enabled again, its thread's thread recorded" 100 "$(calls in_thread)"
    check_eq "$how: no call after the prctl" 0 "$(calls after)"
    traces=2 # the fork child has a trace, of a thread that stays stopped
  else
    check_eq "$how: no call of its thread's thread" 0 "$(calls in_thread)"
  fi
  if [ $arg = thread ]; then
    check_eq "$how: the main thread's calls after it, recorded" 50 "$(calls after)"
  elif [ $arg != enable ]; then
    check_eq "$how: no call after the prctl" 0 "$(calls after)"
  fi
  [ $arg = thread ] || check_eq "$how: no call of its fork child" 0 "$(calls in_child)"
  check "$how: report's header says why the thread stopped" \
    grep -q 'stopped recording before it ended: the program disabled rdtsc (PR_SET_TSC) at [0-9.]* ms' report
  "$INCLPROF" info out-$how >info 2>&1
  check_eq "$how: every trace ended cleanly" $traces "$(grep -c '^trailer:      clean shutdown' info)"
  check "$how: info says why the thread stopped" \
    grep -q '^stopped:      thread [0-9]* stopped recording before it ended: the program disabled rdtsc (PR_SET_TSC)' info
done

# The runtime starting on a thread that cannot read the TSC (a library with
# probes, linked with the runtime, loaded after the prctl) says so and
# leaves the program unprofiled.
cat >lib.c <<'SRC'
static volatile long sink;
__attribute__((noinline)) void g(int i) { sink += i; }
void f(void) {
  for (int i = 0; i < 10; i++)
    g(i);
}
SRC
cat >loader.c <<'SRC'
#include <dlfcn.h>
#include <stdio.h>
#include <sys/prctl.h>
int main(void) {
  prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
  void *h = dlopen("./lib.so", RTLD_NOW);
  if (!h)
    return 1;
  ((void (*)(void))dlsym(h, "f"))();
  puts("done");
  return 0;
}
SRC
gcc -O2 -shared -fPIC -fplugin="$INCLPROF_PLUGIN" lib.c -o lib.so -L"$INCLPROF_LIBDIR" \
  -Wl,-rpath,"$INCLPROF_LIBDIR" -Wl,--no-as-needed -linclprof &&
  gcc -O2 loader.c -o loader -ldl || { fail "build loader"; exit 1; }
INCLPROF_OUTPUT=dl ./loader >dl.out 2>dl.err
check_eq "loaded after the prctl: the program's status" 0 "$?"
check_eq "loaded after the prctl: the program's output" done "$(cat dl.out)"
check "loaded after the prctl: the runtime says why the program is unprofiled" \
  grep -q 'rdtsc is disabled in this thread (PR_SET_TSC); the program continues unprofiled' dl.err
done_testing
