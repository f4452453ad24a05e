/* util/u64map.c - open-addressing (linear probing) hash map, see util/u64map.h. */
#include "util/u64map.h"

#include <stdlib.h>

#include "util/must_alloc.h"

#define EMPTY UINT32_MAX

static void insert(uint64_t *keys, uint32_t *vals, size_t cap, uint64_t key, uint32_t val) {
  size_t i = ip_u64map_slot(key, cap);
  while (vals[i] != EMPTY && keys[i] != key)
    i = (i + 1) & (cap - 1);
  keys[i] = key;
  vals[i] = val;
}

static void grow(ip_u64map *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  uint64_t *keys = ip_must_realloc(NULL, cap, sizeof *keys);
  uint32_t *vals = ip_must_realloc(NULL, cap, sizeof *vals);
  for (size_t i = 0; i < cap; i++)
    vals[i] = EMPTY;
  for (size_t i = 0; i < m->cap; i++)
    if (m->vals[i] != EMPTY)
      insert(keys, vals, cap, m->keys[i], m->vals[i]);
  free(m->keys);
  free(m->vals);
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
}

void ip_u64map_put(ip_u64map *m, uint64_t key, uint32_t val) {
  if ((m->len + 1) * 2 > m->cap)
    grow(m);
  if (ip_u64map_get(m, key) == EMPTY)
    m->len++;
  insert(m->keys, m->vals, m->cap, key, val);
}

void ip_u64map_free(ip_u64map *m) {
  free(m->keys);
  free(m->vals);
  m->keys = NULL;
  m->vals = NULL;
  m->cap = m->len = 0;
}
