/* fnv1a.h - FNV-1a, 64 bits, with the standard offset basis and prime: the
 * hash of function identities and of names in lookup tables.  Hash a string
 * with ip_fnv1a64_str(IP_FNV1A64_BASIS, s); continue a running hash by
 * passing it as h. */
#ifndef INCLPROF_FNV1A_H
#define INCLPROF_FNV1A_H

#include <stddef.h>
#include <stdint.h>

#define IP_FNV1A64_BASIS 0xcbf29ce484222325ull
#define IP_FNV1A64_PRIME 0x100000001b3ull

static inline uint64_t ip_fnv1a64(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * IP_FNV1A64_PRIME;
  return h;
}

/* The string's bytes and its terminating '\0', so that ("ab","c") and
 * ("a","bc") hash apart when strings are chained. */
static inline uint64_t ip_fnv1a64_str(uint64_t h, const char *s) {
  for (;; s++) {
    h = (h ^ (unsigned char)*s) * IP_FNV1A64_PRIME;
    if (!*s)
      return h;
  }
}

#endif
