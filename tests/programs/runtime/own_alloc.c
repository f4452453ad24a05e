/* own_alloc.c - a program with its own allocator: malloc, calloc, realloc,
 * free, posix_memalign, aligned_alloc and memalign come from a static pool
 * and count their calls.  A call made while another is running on the same
 * thread (re-entry, as from a profiler calling malloc inside a probe of
 * malloc) traps, as GCC's tree-prof tests do.  main makes ROUNDS rounds of
 * its own allocations in THREADS threads and prints, last, how many calls
 * each function had and a checksum of the work: a run recorded must print
 * what a plain run prints.
 *   usage: own_alloc ROUNDS THREADS */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POOL (64u << 20)

static _Alignas(64) unsigned char pool[POOL];
static _Atomic size_t pool_used;
static _Atomic long n_malloc, n_calloc, n_realloc, n_free, n_aligned;
static __thread int depth;

__attribute__((noinline)) static void *take(size_t n, size_t align) {
  if (depth++)
    __builtin_trap();
  size_t need = (n + 16 + align - 1) & ~(align - 1);
  size_t at = atomic_fetch_add(&pool_used, need + align);
  if (at + need + align > POOL)
    __builtin_trap();
  uintptr_t p = ((uintptr_t)pool + at + 16 + align - 1) & ~(uintptr_t)(align - 1);
  ((size_t *)p)[-1] = n;
  depth--;
  return (void *)p;
}

void *malloc(size_t n) {
  n_malloc++;
  return take(n, 16);
}

void *calloc(size_t k, size_t n) {
  n_calloc++;
  return take(k * n, 16); /* the pool is never reused: zero */
}

void *realloc(void *p, size_t n) {
  n_realloc++;
  void *q = take(n, 16);
  if (p) {
    size_t old = ((size_t *)p)[-1];
    memcpy(q, p, old < n ? old : n);
  }
  return q;
}

void free(void *p) {
  if (depth)
    __builtin_trap();
  if (p)
    n_free++;
}

int posix_memalign(void **out, size_t align, size_t n) {
  n_aligned++;
  *out = take(n, align < 16 ? 16 : align);
  return 0;
}

void *aligned_alloc(size_t align, size_t n) {
  n_aligned++;
  return take(n, align < 16 ? 16 : align);
}

void *memalign(size_t align, size_t n) {
  n_aligned++;
  return take(n, align < 16 ? 16 : align);
}

__attribute__((noinline)) static long work(int rounds, int seed) {
  long sum = 0;
  char *grow = NULL;
  for (int i = 0; i < rounds; i++) {
    int *a = malloc(64 * sizeof *a);
    int *z = calloc(32, sizeof *z);
    for (int k = 0; k < 64; k++)
      a[k] = k * seed + i;
    for (int k = 0; k < 32; k++)
      sum += a[k] + z[k];
    grow = realloc(grow, (size_t)(i % 100 + 1) * 8);
    grow[i % 100 * 8] = (char)i;
    free(a);
    free(z);
  }
  free(grow);
  return sum;
}

struct job {
  int rounds, seed;
  long sum;
};

__attribute__((noinline)) static void *worker(void *arg) {
  struct job *j = arg;
  j->sum = work(j->rounds, j->seed);
  return NULL;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 1000, threads = argc > 2 ? atoi(argv[2]) : 0;
  long sum = work(rounds, 1);
  pthread_t th[64];
  struct job jobs[64];
  for (int t = 0; t < threads && t < 64; t++) {
    jobs[t] = (struct job){rounds, t + 2, 0};
    pthread_create(&th[t], NULL, worker, &jobs[t]);
  }
  for (int t = 0; t < threads && t < 64; t++) {
    pthread_join(th[t], NULL);
    sum += jobs[t].sum;
  }
  char line[200];
  int n = snprintf(line, sizeof line,
                   "malloc=%ld calloc=%ld realloc=%ld free=%ld aligned=%ld sum=%ld\n", n_malloc,
                   n_calloc, n_realloc, n_free, n_aligned, sum);
  return write(1, line, (size_t)n) == n ? 0 : 1;
}
