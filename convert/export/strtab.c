/* export/strtab.c - string interning with an open-addressing hash table. */
#include "fnv1a.h"
#include "export/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static uint64_t hash(const char *s) { return ip_fnv1a64_str(IP_FNV1A64_BASIS, s); }

static size_t slot_of(const ip_strtab *t, const char *s) {
  size_t mask = t->n_slots - 1, i = (size_t)hash(s) & mask;
  while (t->slots[i] && strcmp(t->strs[t->slots[i] - 1], s))
    i = (i + 1) & mask;
  return i;
}

static void grow(ip_strtab *t) {
  size_t old_n = t->n_slots;
  uint32_t *old = t->slots;
  t->n_slots = old_n ? old_n * 2 : 64;
  t->slots = ip_must_calloc(t->n_slots, sizeof *t->slots);
  for (size_t i = 0; i < old_n; i++)
    if (old[i])
      t->slots[slot_of(t, t->strs[old[i] - 1])] = old[i];
  free(old);
}

void ip_strtab_init(ip_strtab *t) {
  memset(t, 0, sizeof *t);
  ip_strtab_intern(t, "");
}

uint32_t ip_strtab_intern(ip_strtab *t, const char *s) {
  if (!s)
    s = "";
  if (2 * (t->n + 1) > t->n_slots)
    grow(t);
  size_t i = slot_of(t, s);
  if (t->slots[i])
    return t->slots[i] - 1;
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 64;
    t->strs = ip_must_realloc(t->strs, t->cap, sizeof *t->strs);
  }
  t->strs[t->n] = ip_must_strdup(s);
  t->slots[i] = (uint32_t)++t->n;
  return (uint32_t)(t->n - 1);
}

int64_t ip_strtab_find(const ip_strtab *t, const char *s) {
  if (!t->n_slots)
    return -1;
  size_t i = slot_of(t, s ? s : "");
  return t->slots[i] ? (int64_t)t->slots[i] - 1 : -1;
}

void ip_strtab_free(ip_strtab *t) {
  for (size_t i = 0; i < t->n; i++)
    free(t->strs[i]);
  free(t->strs);
  free(t->slots);
  memset(t, 0, sizeof *t);
}
