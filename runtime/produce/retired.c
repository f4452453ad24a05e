/* retired.c - the gids of an unloaded unit's descriptors and code addresses.
 * When a unit is unregistered (dlclose), each of its pointer -> gid entries
 * leaves the live map and is kept here with the tick it was retired at, so
 * that a library loaded later at the same addresses gets gids of its own,
 * while events recorded before the unload - still buffered in any thread -
 * resolve to the old ones.  Entries are never removed; reads are lock-free,
 * writes under the registry's lock. */
#include "produce/produce.h"

#define CHUNK  4096u
#define CHUNKS 1024u /* 4M retired entries at most; past that entries stay live */

struct retired {
  uint64_t until; /* events before this tick had gid */
  uint32_t gid;
  uint32_t older; /* 1 + index of the same key's previous entry, 0 ends */
};

static struct retired *_Atomic chunk[CHUNKS];
static uint32_t n_entries;
static atomic_int any;

static struct retired *entry(uint32_t i) {
  return &atomic_load_explicit(&chunk[i / CHUNK], memory_order_acquire)[i % CHUNK];
}

/* Caller holds reg_lock.  live: the map key leaves; hist: where it goes. */
void ip_retire(struct ip_map *live, struct ip_map *hist, uintptr_t key, uint64_t until) {
  uint32_t gid = ip_map_get(live, key);
  if (!gid || n_entries == CHUNK * CHUNKS)
    return;
  uint32_t i = n_entries;
  if (!atomic_load_explicit(&chunk[i / CHUNK], memory_order_relaxed)) {
    struct retired *c = ip_alloc(CHUNK * sizeof *c);
    if (!c)
      return;
    atomic_store_explicit(&chunk[i / CHUNK], c, memory_order_release);
  }
  struct retired *r = entry(i);
  r->until = until;
  r->gid = gid;
  r->older = ip_map_get(hist, key);
  n_entries++;
  atomic_thread_fence(memory_order_release); /* the entry before its index */
  ip_map_put(hist, key, i + 1);
  atomic_store(&any, 1);
  ip_map_put(live, key, 0);
}

uint32_t ip_retired_gid(struct ip_map *hist, uintptr_t key, uint64_t tick, int *had) {
  if (IP_LIKELY(!atomic_load_explicit(&any, memory_order_relaxed)))
    return 0;
  uint32_t i = ip_map_get(hist, key), gid = 0;
  if (!i)
    return 0;
  atomic_thread_fence(memory_order_acquire);
  *had = 1;
  for (; i; i = entry(i - 1)->older) {
    const struct retired *r = entry(i - 1);
    if (tick >= r->until)
      break;
    gid = r->gid;
  }
  return gid;
}
