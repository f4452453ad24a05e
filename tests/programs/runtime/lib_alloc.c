/* lib_alloc.c - a call-dense program that takes its memory from whatever
 * malloc it is linked with: each of ROUNDS rounds in each of THREADS
 * threads (0: main alone) allocates a block, fills it with CALLS calls of
 * step and frees it.  Prints the file name of the object that defines the
 * malloc it calls, then a checksum of the work.
 *   usage: lib_alloc ROUNDS CALLS THREADS */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rounds, calls;

__attribute__((noinline)) static uint64_t step(uint64_t x, long i) {
  __asm__ volatile("");
  return x * 6364136223846793005u + (uint64_t)i;
}

static void *work(void *arg) {
  uint64_t sum = (uintptr_t)arg;
  for (long r = 0; r < rounds; r++) {
    uint64_t *block = malloc((size_t)calls * sizeof *block);
    if (!block)
      abort();
    for (long i = 0; i < calls; i++)
      sum = block[i] = step(sum, i);
    sum ^= block[r % calls];
    free(block);
  }
  return (void *)(uintptr_t)sum;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  rounds = atol(argv[1]), calls = atol(argv[2]);
  long threads = atol(argv[3]);
  if (rounds < 1 || calls < 1 || threads < 0 || threads > 64)
    return 2;
  Dl_info where;
  void *(*volatile m)(size_t) = malloc;
  const char *file = dladdr((void *)m, &where) && where.dli_fname ? where.dli_fname : "?";
  const char *slash = strrchr(file, '/');
  printf("malloc from %s\n", slash ? slash + 1 : file);
  uint64_t sum = (uintptr_t)work((void *)1);
  pthread_t t[64];
  for (long i = 0; i < threads; i++)
    if (pthread_create(&t[i], NULL, work, (void *)(uintptr_t)(i + 2)))
      return 1;
  for (long i = 0; i < threads; i++) {
    void *r;
    pthread_join(t[i], &r);
    sum ^= (uintptr_t)r;
  }
  printf("sum %016llx\n", (unsigned long long)sum);
  return 0;
}
