/* own_string.c - the runtime's own definitions of the mem* and str*
 * functions that it, protobuf-c and libdeflate call (and that GCC emits for
 * struct copies and initialisations), hidden inside libinclprof.so so that
 * every such call binds here, never to the program: a program may define
 * memmove or strlen itself (embedded-style code, test suites), and would
 * then see calls it never made, in its own counts and in the profile, from
 * inside the runtime's flush.  Built with -fno-builtin and
 * -fno-tree-loop-distribute-patterns (runtime/build.mk), so that GCC does
 * not turn these loops back into calls of the same functions.  Only in the
 * shared runtime: in libinclprof.a they would clash with a program's own
 * (docs/runtime.md, "Memory").  The copies, fills and compares move 32 or
 * 8 bytes at a time; the string functions, called only for settings, paths
 * and names, go a byte at a time and never read past the string.  strtod is
 * not among them: the runtime reads its one floating-point file with sscanf. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define OWN __attribute__((visibility("hidden")))

/* Unaligned, alias-free loads and stores of 16 and 8 bytes. */
typedef unsigned char v16 __attribute__((vector_size(16), aligned(1), may_alias));
typedef uint64_t u64 __attribute__((aligned(1), may_alias));

OWN void *memcpy(void *restrict dst, const void *restrict src, size_t n);
OWN void *memmove(void *dst, const void *src, size_t n);
OWN void *memset(void *dst, int c, size_t n);
OWN int memcmp(const void *a, const void *b, size_t n);
OWN void *memrchr(const void *s, int c, size_t n);
OWN size_t strlen(const char *s);
OWN size_t strnlen(const char *s, size_t max);
OWN char *strchr(const char *s, int c);
OWN char *strrchr(const char *s, int c);
OWN int strcmp(const char *a, const char *b);
OWN int strncmp(const char *a, const char *b, size_t n);
OWN char *strcpy(char *restrict dst, const char *restrict src);
OWN char *strncpy(char *restrict dst, const char *restrict src, size_t n);
OWN size_t strcspn(const char *s, const char *reject);
OWN char *strstr(const char *s, const char *part);
OWN long strtol(const char *s, char **end, int base);
OWN unsigned long strtoul(const char *s, char **end, int base);
OWN unsigned long long strtoull(const char *s, char **end, int base);

/* Forward, 32 bytes at a time, each block loaded whole before it is
 * stored: right for dst below src even when they overlap. */
static void copy_up(unsigned char *d, const unsigned char *s, size_t n) {
  for (; n >= 32; n -= 32, d += 32, s += 32) {
    v16 a = *(const v16 *)s, b = *(const v16 *)(s + 16);
    *(v16 *)d = a;
    *(v16 *)(d + 16) = b;
  }
  for (; n >= 8; n -= 8, d += 8, s += 8)
    *(u64 *)d = *(const u64 *)s;
  while (n--)
    *d++ = *s++;
}

/* Backward from the ends, for dst above an overlapping src. */
static void copy_down(unsigned char *d, const unsigned char *s, size_t n) {
  d += n;
  s += n;
  for (; n >= 32; n -= 32) {
    d -= 32;
    s -= 32;
    v16 a = *(const v16 *)s, b = *(const v16 *)(s + 16);
    *(v16 *)d = a;
    *(v16 *)(d + 16) = b;
  }
  for (; n >= 8; n -= 8) {
    d -= 8;
    s -= 8;
    *(u64 *)d = *(const u64 *)s;
  }
  while (n--)
    *--d = *--s;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
  copy_up(dst, src, n);
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if ((uintptr_t)d - (uintptr_t)s >= n) /* d below s, or no overlap */
    copy_up(d, s, n);
  else
    copy_down(d, s, n);
  return dst;
}

void *memset(void *dst, int c, size_t n) {
  unsigned char *d = dst, b = (unsigned char)c;
  v16 fill = {b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b};
  uint64_t word = 0x0101010101010101ull * b;
  for (; n >= 32; n -= 32, d += 32) {
    *(v16 *)d = fill;
    *(v16 *)(d + 16) = fill;
  }
  for (; n >= 8; n -= 8, d += 8)
    *(u64 *)d = word;
  while (n--)
    *d++ = b;
  return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  for (; n >= 8 && *(const u64 *)x == *(const u64 *)y; n -= 8, x += 8, y += 8)
    ;
  for (; n; n--, x++, y++)
    if (*x != *y)
      return *x < *y ? -1 : 1;
  return 0;
}

void *memrchr(const void *s, int c, size_t n) {
  const unsigned char *p = (const unsigned char *)s + n;
  while (n--)
    if (*--p == (unsigned char)c)
      return (void *)p;
  return NULL;
}

size_t strlen(const char *s) {
  const char *p = s;
  while (*p)
    p++;
  return (size_t)(p - s);
}

size_t strnlen(const char *s, size_t max) {
  size_t n = 0;
  while (n < max && s[n])
    n++;
  return n;
}

char *strchr(const char *s, int c) {
  for (;; s++) {
    if (*s == (char)c)
      return (char *)s;
    if (!*s)
      return NULL;
  }
}

char *strrchr(const char *s, int c) {
  const char *last = NULL;
  for (;; s++) {
    if (*s == (char)c)
      last = s;
    if (!*s)
      return (char *)last;
  }
}

int strcmp(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  while (*x && *x == *y)
    x++, y++;
  return (*x > *y) - (*x < *y);
}

int strncmp(const char *a, const char *b, size_t n) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  for (; n; n--, x++, y++)
    if (*x != *y || !*x)
      return (*x > *y) - (*x < *y);
  return 0;
}

char *strcpy(char *restrict dst, const char *restrict src) {
  char *d = dst;
  while ((*d++ = *src++))
    ;
  return dst;
}

char *strncpy(char *restrict dst, const char *restrict src, size_t n) {
  size_t i = 0;
  for (; i < n && src[i]; i++)
    dst[i] = src[i];
  for (; i < n; i++)
    dst[i] = 0;
  return dst;
}

/* Whether byte c is one of set's. */
static int in_set(char c, const char *set) {
  for (; *set; set++)
    if (*set == c)
      return 1;
  return 0;
}

size_t strcspn(const char *s, const char *reject) {
  size_t n = 0;
  while (s[n] && !in_set(s[n], reject))
    n++;
  return n;
}

char *strstr(const char *s, const char *part) {
  for (;; s++) {
    size_t i = 0;
    while (part[i] && s[i] == part[i])
      i++;
    if (!part[i])
      return (char *)s;
    if (!*s)
      return NULL;
  }
}

static int digit_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z')
    return c - 'A' + 10;
  return 99;
}

/* As strtoull: white space, a sign, the base's prefix (0x for 16 or 0; a 0
 * for 8 with base 0), the digits; *neg set for a minus sign, *over when the
 * digits exceed limit (the value is then limit).  *end stays at s without a
 * digit. */
static unsigned long long parse(const char *s, char **end, int base, unsigned long long limit,
                                int *neg, int *over) {
  const char *p = s;
  while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
    p++;
  *neg = *p == '-';
  if (*p == '-' || *p == '+')
    p++;
  if ((base == 0 || base == 16) && p[0] == '0' && (p[1] | 0x20) == 'x' && digit_value(p[2]) < 16) {
    p += 2;
    base = 16;
  } else if (base == 0)
    base = p[0] == '0' ? 8 : 10;
  const char *first = p;
  unsigned long long v = 0;
  *over = 0;
  for (int d; (d = digit_value(*p)) < base; p++) {
    if (v > (limit - (unsigned)d) / (unsigned)base)
      *over = 1;
    else
      v = v * (unsigned)base + (unsigned)d;
  }
  if (end)
    *end = (char *)(p == first ? s : p);
  return *over ? limit : v;
}

unsigned long long strtoull(const char *s, char **end, int base) {
  int neg, over;
  unsigned long long v = parse(s, end, base, ULLONG_MAX, &neg, &over);
  if (over)
    errno = ERANGE;
  return neg && !over ? -v : v;
}

unsigned long strtoul(const char *s, char **end, int base) {
  int neg, over;
  unsigned long v = (unsigned long)parse(s, end, base, ULONG_MAX, &neg, &over);
  if (over)
    errno = ERANGE;
  return neg && !over ? -v : v;
}

long strtol(const char *s, char **end, int base) {
  int neg, over;
  unsigned long long limit = (unsigned long long)LONG_MAX + 1u;
  unsigned long long v = parse(s, end, base, limit, &neg, &over);
  if (over || (!neg && v == limit)) {
    errno = ERANGE;
    return neg ? LONG_MIN : LONG_MAX;
  }
  return neg ? (long)(0 - v) : (long)v;
}
