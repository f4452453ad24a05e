/* modmain.c - the main program of the module tests.  It keeps its own count
 * of the calls it makes and prints them (the truth the tests compare with):
 *   modmain linked N     - calls one_entry(N) of the library it is linked
 *                          with (found through LD_LIBRARY_PATH), then plain_cb
 *                          through a pointer N times; prints its own base
 *   modmain reload A B N - dlopen A, one_entry(N) on the main thread and on
 *                          a worker, dlclose; dlopen B, two_entry(2N) on
 *                          both, dlclose (the worker's events of both
 *                          libraries are still buffered at the end) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned plain_cb(unsigned x);
#ifdef LINKED
unsigned one_entry(unsigned n);
#endif

static unsigned (*volatile cb)(unsigned) = plain_cb;

__attribute__((noinline)) static unsigned call_plain(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; i++)
    s += cb(i);
  return s;
}

typedef unsigned (*entry_fn)(unsigned);

/* The worker thread: calls each entry point main hands it, with the
 * argument main gives, then waits for the next (NULL ends it).  Its events
 * stay buffered across main's dlclose and dlopen. */
static entry_fn job;
static unsigned job_n;
static unsigned long worker_leaf;
static sem_t go, done;

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    sem_wait(&go);
    if (!job)
      return NULL;
    worker_leaf += job(job_n);
    sem_post(&done);
  }
}

/* Loads path, calls sym(n) here and on the worker, unloads it. */
static int run_lib(const char *path, const char *sym, unsigned n, unsigned long *leaf_calls) {
  void *h = dlopen(path, RTLD_NOW);
  if (!h) {
    fprintf(stderr, "modmain: %s\n", dlerror());
    return 1;
  }
  entry_fn entry = (entry_fn)dlsym(h, sym);
  if (!entry) {
    fprintf(stderr, "modmain: %s\n", dlerror());
    return 1;
  }
  Dl_info di;
  if (dladdr((void *)entry, &di))
    printf("base %s %p\n", sym, di.dli_fbase);
  *leaf_calls += entry(n);
  worker_leaf = 0;
  job = entry;
  job_n = n;
  sem_post(&go);
  sem_wait(&done);
  *leaf_calls += worker_leaf;
  dlclose(h);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "linked")) {
#ifdef LINKED
    unsigned n = (unsigned)strtoul(argv[2], NULL, 10);
    unsigned long leaf = one_entry(n);
    call_plain(n);
    Dl_info di;
    if (dladdr((void *)main, &di))
      printf("base main %p\n", di.dli_fbase);
    printf("one_entry 1\none_leaf %lu\nplain_cb %u\n", leaf, n);
    return 0;
#endif
  }
  if (argc >= 5 && !strcmp(argv[1], "reload")) {
    unsigned n = (unsigned)strtoul(argv[4], NULL, 10);
    unsigned long one = 0, two = 0;
    pthread_t w;
    sem_init(&go, 0, 0);
    sem_init(&done, 0, 0);
    pthread_create(&w, NULL, worker, NULL);
    if (run_lib(argv[2], "one_entry", n, &one) || run_lib(argv[3], "two_entry", 2 * n, &two))
      return 1;
    job = NULL;
    sem_post(&go);
    pthread_join(w, NULL);
    printf("one_entry 2\none_leaf %lu\ntwo_entry 2\ntwo_leaf %lu\n", one, two);
    return 0;
  }
  fprintf(stderr, "usage: modmain linked N | reload LIB_A LIB_B N\n");
  return 2;
}
