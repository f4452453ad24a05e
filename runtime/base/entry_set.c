/* entry_set.c - the entry addresses of the instrumented functions whose
 * probes are live, and of the functions whose calls a filter excludes,
 * which an indirect call's probes look up so that a call through a pointer
 * to one records only the callee's own ENTER and EXIT (or nothing).
 * An open-addressing set: lock-free reads (ip_entry_known, inline in the
 * probes), writes under the registry's lock.  A removed address leaves a
 * tombstone; a grown table replaces the old one, which is never freed (a
 * probe may still be walking it). */
#include "base/base.h"

struct ip_entry_table *_Atomic ip_entry_table;

static void table_add(struct ip_entry_table *t, uintptr_t a) {
  for (size_t i = ip_entry_slot(t, a);; i = (i + 1) & t->mask) {
    uintptr_t k = atomic_load_explicit(&t->key[i], memory_order_relaxed);
    if (k == a)
      return;
    if (!k) {
      atomic_store_explicit(&t->key[i], a, memory_order_release);
      t->used++;
      return;
    }
  }
}

/* Caller holds reg_lock. */
void ip_entry_add(uintptr_t a) {
  struct ip_entry_table *t = atomic_load_explicit(&ip_entry_table, memory_order_relaxed);
  if (!a || a == IP_ENTRY_GONE)
    return;
  if (t && (t->used + 1) * 2 <= t->mask + 1) {
    table_add(t, a);
    return;
  }
  size_t cap = t ? (t->mask + 1) * 2 : 1024;
  unsigned bits = 0;
  while ((size_t)1 << bits < cap)
    bits++;
  struct ip_entry_table *n = ip_alloc(sizeof *n + cap * sizeof n->key[0]);
  if (!n)
    return; /* the calls to it record CALL and RET around its own events, as before */
  n->mask = cap - 1;
  n->shift = 64 - bits;
  for (size_t i = 0; t && i <= t->mask; i++) {
    uintptr_t k = atomic_load_explicit(&t->key[i], memory_order_relaxed);
    if (k && k != IP_ENTRY_GONE)
      table_add(n, k);
  }
  table_add(n, a);
  atomic_store_explicit(&ip_entry_table, n, memory_order_release);
}

/* Caller holds reg_lock. */
void ip_entry_remove(uintptr_t a) {
  struct ip_entry_table *t = atomic_load_explicit(&ip_entry_table, memory_order_relaxed);
  if (!t || !a)
    return;
  for (size_t i = ip_entry_slot(t, a);; i = (i + 1) & t->mask) {
    uintptr_t k = atomic_load_explicit(&t->key[i], memory_order_relaxed);
    if (!k)
      return;
    if (k == a) {
      atomic_store_explicit(&t->key[i], IP_ENTRY_GONE, memory_order_release);
      return;
    }
  }
}
