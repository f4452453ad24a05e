/* ring_load.c - a steady load for the ring policy of the size limit: main
 * calls run(), which stays open for the whole run and calls step() R times;
 * each step() calls leaf() 100 times and the C library's atoi() once (a
 * call-site probe pair: CALL/RET).  A second thread does the same.  Prints
 * the number of leaf() calls made, from a counter in the program.
 * Usage: ring_load R */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long leaf_calls[2];

__attribute__((noinline)) static void leaf(int who) {
  sink += 1;
  leaf_calls[who]++;
}

static const char *volatile seven = "7";

__attribute__((noinline)) static void step(int who) {
  for (int i = 0; i < 50; i++)
    leaf(who);
  sink += (unsigned long)atoi(seven);
  for (int i = 0; i < 50; i++)
    leaf(who);
}

__attribute__((noinline)) static void run(int who, long rounds) {
  for (long r = 0; r < rounds; r++)
    step(who);
}

static long rounds;

static void *worker(void *arg) {
  (void)arg;
  run(1, rounds);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  rounds = atol(argv[1]);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  run(0, rounds);
  pthread_join(t, NULL);
  printf("leaf calls: %lu\n", leaf_calls[0] + leaf_calls[1]);
  return 0;
}
