/* util/must_alloc.c - allocation that never returns NULL (see util/must_alloc.h). */
#include "util/must_alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t bytes) {
  fprintf(stderr, "inclprof: out of memory (allocating %zu bytes)\n", bytes);
  exit(1);
}

void *ip_must_realloc(void *p, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size)
    out_of_memory(SIZE_MAX);
  size_t bytes = n && size ? n * size : 1;
  void *q = realloc(p, bytes);
  if (!q)
    out_of_memory(bytes);
  return q;
}

void *ip_must_calloc(size_t n, size_t size) {
  void *q = calloc(n ? n : 1, size ? size : 1);
  if (!q)
    out_of_memory(n * size);
  return q;
}

char *ip_must_strdup(const char *s) {
  if (!s)
    return NULL;
  char *d = strdup(s);
  if (!d)
    out_of_memory(strlen(s) + 1);
  return d;
}

void ip_must_grow(void **arr, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return;
  size_t ncap = *cap ? *cap : 8;
  while (ncap < need)
    ncap *= 2;
  char *a = ip_must_realloc(*arr, ncap, size);
  memset(a + *cap * size, 0, (ncap - *cap) * size);
  *arr = a;
  *cap = ncap;
}
