/* late_calls.c - instrumented calls made after the usual end points: key
 * destructors of exiting threads, an atexit handler, and an ELF destructor
 * (__attribute__((destructor))) that runs after main has returned.  The
 * program counts each kind itself and prints the counts from the destructor,
 * the last of its code to run. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4

static pthread_key_t key;
static _Atomic int key_calls, atexit_calls, dtor_calls, leaf_calls;

__attribute__((noinline)) void late_leaf(void) { leaf_calls++; }

__attribute__((noinline)) void key_cleanup(void *v) {
  (void)v;
  key_calls++;
  late_leaf();
}

__attribute__((noinline)) void *worker(void *arg) {
  pthread_setspecific(key, arg);
  late_leaf();
  return NULL;
}

__attribute__((noinline)) void on_atexit(void) {
  atexit_calls++;
  late_leaf();
}

__attribute__((destructor)) void on_unload(void) {
  dtor_calls++;
  late_leaf();
  printf("key %d atexit %d destructor %d leaf %d\n", key_calls, atexit_calls, dtor_calls,
         leaf_calls);
}

int main(void) {
  pthread_key_create(&key, key_cleanup);
  atexit(on_atexit);
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, worker, (void *)(i + 1));
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  return 0;
}
