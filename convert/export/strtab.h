/* export/strtab.h - a string interning table: each distinct string gets a
 * dense index in order of first use, index 0 being "" (pprof's string_table
 * rule; callgrind's name compression uses the indices too). */
#ifndef INCLPROF_EXPORT_STRTAB_H
#define INCLPROF_EXPORT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct ip_strtab {
  char **strs; /* strs[i] is the string of index i */
  size_t n, cap;
  uint32_t *slots; /* open addressing: index + 1, 0 = empty */
  size_t n_slots;  /* a power of two */
} ip_strtab;

void ip_strtab_init(ip_strtab *t);
/* Index of s, adding it if new (NULL counts as ""). */
uint32_t ip_strtab_intern(ip_strtab *t, const char *s);
/* Index of s, or -1 if it was never interned. */
int64_t ip_strtab_find(const ip_strtab *t, const char *s);
void ip_strtab_free(ip_strtab *t);

#endif
