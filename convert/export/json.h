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

/* The number of decimal digits of v. */
static inline unsigned ip_json_digits(uint64_t v) {
  unsigned n = 1;
  for (; v >= 10; v /= 10)
    n++;
  return n;
}

/* v in decimal at p; the byte after it (at most 20 digits). */
char *ip_json_u64(char *p, uint64_t v);

#endif
