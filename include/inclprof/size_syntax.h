/* size_syntax.h - the one way sizes are written to inclprof, by the command
 * (record --max-size, export --max-size) and the runtime (INCLPROF_MAX_SIZE):
 * a decimal number, optionally with a fraction, then optionally a binary
 * multiple K, M, G or T (either case) and a B: 4096, 64K, 1.5G, 500MB. */
#ifndef INCLPROF_SIZE_SYNTAX_H
#define INCLPROF_SIZE_SYNTAX_H

#include <stdint.h>

/* 0 and *bytes set when s is a size that fits in 64 bits; -1 otherwise. */
static inline int ip_size_parse(const char *s, uint64_t *bytes) {
  long double v = 0, scale = 1;
  const char *p = s;
  if (!p || *p < '0' || *p > '9')
    return -1;
  for (; *p >= '0' && *p <= '9'; p++)
    v = v * 10 + (*p - '0');
  if (*p == '.') {
    if (p[1] < '0' || p[1] > '9')
      return -1;
    for (long double f = 0.1L; *++p >= '0' && *p <= '9'; f /= 10)
      v += f * (*p - '0');
  }
  static const char units[] = "KMGT";
  for (int i = 0; units[i]; i++)
    if (*p == units[i] || *p == units[i] + ('a' - 'A')) {
      scale = (long double)(1ull << (10 * (i + 1)));
      p++;
      break;
    }
  if (*p == 'B' || *p == 'b')
    p++;
  v *= scale;
  if (*p || v >= 18446744073709551615.0L)
    return -1;
  *bytes = (uint64_t)(v + 0.5L);
  return 0;
}

#endif
