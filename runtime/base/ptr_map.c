/* ptr_map.c - an open-addressing map from a nonzero uintptr_t key to a
 * uint32_t value, 0 meaning absent: lock-free reads (a flush in a signal
 * handler uses them), writes under the owner's lock.  A grown table
 * replaces the old one, which is never freed: a reader may still be walking
 * it.  A key once put stays; putting 0 makes it absent again. */
#include "base/base.h"

struct slot {
  _Atomic uintptr_t key;
  _Atomic uint32_t val;
};
struct ip_map_table {
  size_t mask, used;
  struct slot s[];
};

static size_t hash(uintptr_t k) {
  uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  return (size_t)(x ^ (x >> 29));
}

uint32_t ip_map_get(struct ip_map *m, uintptr_t k) {
  struct ip_map_table *t = atomic_load_explicit(&m->tab, memory_order_acquire);
  if (!t)
    return 0;
  for (size_t i = hash(k) & t->mask;; i = (i + 1) & t->mask) {
    uintptr_t kk = atomic_load_explicit(&t->s[i].key, memory_order_acquire);
    if (kk == k)
      return atomic_load_explicit(&t->s[i].val, memory_order_relaxed);
    if (!kk)
      return 0;
  }
}

static void table_put(struct ip_map_table *t, uintptr_t k, uint32_t v) {
  for (size_t i = hash(k) & t->mask;; i = (i + 1) & t->mask) {
    uintptr_t kk = atomic_load_explicit(&t->s[i].key, memory_order_relaxed);
    if (kk == k || !kk) {
      atomic_store_explicit(&t->s[i].val, v, memory_order_relaxed);
      if (!kk) {
        atomic_store_explicit(&t->s[i].key, k, memory_order_release);
        t->used++;
      }
      return;
    }
  }
}

/* Caller holds the owner's lock. */
void ip_map_put(struct ip_map *m, uintptr_t k, uint32_t v) {
  struct ip_map_table *t = atomic_load_explicit(&m->tab, memory_order_relaxed);
  if (!t || (t->used + 1) * 2 > t->mask + 1) {
    size_t cap = t ? (t->mask + 1) * 2 : 1024;
    struct ip_map_table *n = ip_alloc(sizeof *n + cap * sizeof n->s[0]);
    if (!n)
      return;
    n->mask = cap - 1;
    for (size_t i = 0; t && i <= t->mask; i++) {
      uintptr_t kk = atomic_load_explicit(&t->s[i].key, memory_order_relaxed);
      if (kk)
        table_put(n, kk, atomic_load_explicit(&t->s[i].val, memory_order_relaxed));
    }
    table_put(n, k, v);
    atomic_store_explicit(&m->tab, n, memory_order_release);
    return;
  }
  table_put(t, k, v);
}

/* Caller holds the owner's lock; fn may put to m the key it is given. */
void ip_map_each_in(struct ip_map *m, uintptr_t lo, uintptr_t hi,
                    void (*fn)(uintptr_t key, uint32_t val, void *ctx), void *ctx) {
  struct ip_map_table *t = atomic_load_explicit(&m->tab, memory_order_relaxed);
  for (size_t i = 0; t && i <= t->mask; i++) {
    uintptr_t k = atomic_load_explicit(&t->s[i].key, memory_order_relaxed);
    uint32_t v = atomic_load_explicit(&t->s[i].val, memory_order_relaxed);
    if (k >= lo && k < hi && v)
      fn(k, v, ctx);
  }
}
