/* export/json.h - writing JSON string literals: quotes, backslashes and
 * control characters escaped, invalid UTF-8 replaced by U+FFFD, so any
 * function name (C++ names hold quotes, <>, commas) yields valid JSON; and
 * unsigned integers in decimal, formatted into memory without stdio (the
 * timeline exports write millions of them). */
#ifndef INCLPROF_EXPORT_JSON_H
#define INCLPROF_EXPORT_JSON_H

#include <stdint.h>
#include <stdio.h>

/* Writes s (NULL = "") as a quoted JSON string. */
void ip_json_string(FILE *out, const char *s);

/* The number of decimal digits of v: from its bit length (1233 / 4096 is
 * just above log10(2)), one less where v is below that power of ten. */
static inline unsigned ip_json_digits(uint64_t v) {
  static const uint64_t pow10[20] = {1u,
                                     10u,
                                     100u,
                                     1000u,
                                     10000u,
                                     100000u,
                                     1000000u,
                                     10000000u,
                                     100000000u,
                                     1000000000u,
                                     10000000000u,
                                     100000000000u,
                                     1000000000000u,
                                     10000000000000u,
                                     100000000000000u,
                                     1000000000000000u,
                                     10000000000000000u,
                                     100000000000000000u,
                                     1000000000000000000u,
                                     10000000000000000000u};
  uint64_t w = v | 1; /* 0 has one digit; no other power of ten is odd */
  unsigned t = ((64u - (unsigned)__builtin_clzll(w)) * 1233u) >> 12;
  return t + 1 - (w < pow10[t]);
}

/* "00" to "99": two digits at a time. */
extern const char ip_json_pairs[201];

/* v in decimal at p; the byte after it (at most 20 digits). */
static inline char *ip_json_u64(char *p, uint64_t v) {
  unsigned n = ip_json_digits(v);
  char *end = p + n, *q = end;
  for (; v >= 100; v /= 100) {
    q -= 2;
    __builtin_memcpy(q, ip_json_pairs + 2 * (v % 100), 2);
  }
  if (v >= 10) {
    q -= 2;
    __builtin_memcpy(q, ip_json_pairs + 2 * v, 2);
  } else {
    *--q = (char)('0' + v);
  }
  return end;
}

/* v < 1000 as three digits at p (leading zeros kept); the byte after them. */
static inline char *ip_json_3digits(char *p, unsigned v) {
  *p = (char)('0' + v / 100);
  __builtin_memcpy(p + 1, ip_json_pairs + 2 * (v % 100), 2);
  return p + 3;
}

#endif
