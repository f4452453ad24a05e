#!/bin/sh
# runtime_thread_names.sh - a thread named after its first probe
# (pthread_setname_np, as servers name their worker threads) appears under that
# name in the report and the exports; inclprof_thread_name's longer name is
# kept, not cut back to the kernel's 15 bytes.
. "$INCLPROF_SRC/tests/lib.sh"
cat >names.c <<'SRC'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include "inclprof.h"
__attribute__((noinline)) static unsigned long work(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++) s += i ^ (s >> 3);
  return s;
}
static void *late(void *arg) {
  unsigned long s = work(1000);
  pthread_setname_np(pthread_self(), "io_thd_1");
  s += work(1000);
  return (void *)s;
}
static void *explicit_name(void *arg) {
  unsigned long s = work(1000);
  inclprof_thread_name("a-much-longer-thread-name");
  s += work(10);
  return (void *)s;
}
int main(void) {
  pthread_t a, b;
  work(10);
  pthread_create(&a, NULL, late, NULL);
  pthread_create(&b, NULL, explicit_name, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_setname_np(pthread_self(), "main-renamed");
  work(10);
  printf("done\n");
  return 0;
}
SRC
cc_plugin names names.c -O2 -pthread -I"$INCLPROF_SRC/runtime" || { fail "build names"; exit 1; }
INCLPROF_OUTPUT=out ./names >/dev/null 2>&1
check_eq "program ran" 0 "$?"
"$INCLPROF" report --by thread out >threads.txt 2>&1
check "a name set after the first probe is kept (thread exit)" grep -q "(io_thd_1)$" threads.txt
check "the main thread's late name is kept (process exit)" grep -q "(main-renamed)$" threads.txt
check "inclprof_thread_name's long name is not cut back" grep -q "(a-much-longer-thread-name)$" threads.txt
check_eq "no thread keeps the program's name" 0 "$(grep -c '(names)$' threads.txt)"
done_testing
