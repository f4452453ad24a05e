/* u64map.h - open-addressing hash map from 64-bit keys to 32-bit values,
 * used by replay for (parent node, function) -> child node and thread ids,
 * and by the session tables for interned names. */
#ifndef INCLPROF_U64MAP_H
#define INCLPROF_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ip_u64map {
  uint64_t *keys;
  uint32_t *vals;   /* UINT32_MAX marks an empty slot */
  size_t cap, len;  /* cap is a power of two */
} ip_u64map;

/* Value stored for key, or UINT32_MAX. */
uint32_t ip_u64map_get(const ip_u64map *m, uint64_t key);
/* Stores key -> val (val != UINT32_MAX). */
void ip_u64map_put(ip_u64map *m, uint64_t key, uint32_t val);
void ip_u64map_free(ip_u64map *m);

#endif
