/* util/u64map.h - open-addressing hash map from 64-bit keys to 32-bit values,
 * used by replay for (parent node, function) -> child node and thread ids,
 * and by the session tables for interned names. */
#ifndef INCLPROF_U64MAP_H
#define INCLPROF_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ip_u64map {
  uint64_t *keys;
  uint32_t *vals;  /* UINT32_MAX marks an empty slot */
  size_t cap, len; /* cap is a power of two */
} ip_u64map;

static inline size_t ip_u64map_slot(uint64_t key, size_t cap) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return (size_t)key & (cap - 1);
}

/* Value stored for key, or UINT32_MAX (inline: it is on the replay's hot path). */
static inline uint32_t ip_u64map_get(const ip_u64map *m, uint64_t key) {
  if (!m->cap)
    return UINT32_MAX;
  for (size_t i = ip_u64map_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (m->vals[i] == UINT32_MAX || m->keys[i] == key)
      return m->vals[i];
  }
}
/* Stores key -> val (val != UINT32_MAX). */
void ip_u64map_put(ip_u64map *m, uint64_t key, uint32_t val);
void ip_u64map_free(ip_u64map *m);

#endif
