/* aggregate_threads.c - ten rounds of eight short-lived threads, each
 * calling mid 200 times and leaf 1000 times per mid: threads that end
 * between the aggregate mode's intervals and snapshots, their buffers
 * folded by the writer; prints its own count of the calls. */
#include <pthread.h>
#include <stdio.h>

static volatile unsigned long sink;

__attribute__((noinline)) void leaf(int i) { sink += (unsigned)i; }

__attribute__((noinline)) void mid(int n) {
  for (int i = 0; i < n; i++)
    leaf(i);
}

__attribute__((noinline)) void *run(void *arg) {
  (void)arg;
  for (int r = 0; r < 200; r++)
    mid(1000);
  return NULL;
}

int main(void) {
  for (int round = 0; round < 10; round++) {
    pthread_t t[8];
    for (int i = 0; i < 8; i++)
      pthread_create(&t[i], NULL, run, NULL);
    for (int i = 0; i < 8; i++)
      pthread_join(t[i], NULL);
  }
  printf("leaf=%d mid=%d run=%d\n", 10 * 8 * 200 * 1000, 10 * 8 * 200, 10 * 8);
  return 0;
}
