/* own_libc.c - a program that defines memmove, memcpy, memset, strlen,
 * strcmp, snprintf and vsnprintf itself, as embedded code and libc test
 * suites do (GCC's builtins tests: vsnprintf through vsprintf), each
 * counting its calls (its loops read and write through volatile pointers,
 * so that GCC does not make them calls of the same functions).  A small function
 * called ROUNDS times fills event buffers (two events a call: many flushes
 * for the runtime); every 64th round calls each of the five through
 * volatile pointers (real calls at every -O) and checks what they did.
 * Prints the counts; exits 1 if a result was wrong.  No <string.h>: a
 * definition of a function declared in a system header is not instrumented
 * (docs/plugin.md), and the first five are to be, as in a freestanding
 * program (snprintf and vsnprintf, declared in <stdio.h>, are not).
 *   usage: own_libc [ROUNDS] */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long n_memmove, n_memcpy, n_memset, n_strlen, n_strcmp, n_snprintf, n_vsnprintf;

void *memmove(void *dst, const void *src, size_t n) {
  volatile unsigned char *d = dst;
  const volatile unsigned char *s = src;
  n_memmove++;
  if (d < s)
    for (size_t i = 0; i < n; i++)
      d[i] = s[i];
  else
    while (n--)
      d[n] = s[n];
  return dst;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
  volatile unsigned char *d = dst;
  const volatile unsigned char *s = src;
  n_memcpy++;
  for (size_t i = 0; i < n; i++)
    d[i] = s[i];
  return dst;
}

void *memset(void *dst, int c, size_t n) {
  volatile unsigned char *d = dst;
  n_memset++;
  for (size_t i = 0; i < n; i++)
    d[i] = (unsigned char)c;
  return dst;
}

size_t strlen(const char *s) {
  const volatile char *p = s;
  n_strlen++;
  while (*p)
    p++;
  return (size_t)(p - s);
}

int strcmp(const char *a, const char *b) {
  const volatile unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  n_strcmp++;
  while (*x && *x == *y)
    x++, y++;
  return (*x > *y) - (*x < *y);
}

int vsnprintf(char *restrict s, size_t n, const char *restrict fmt, va_list ap) {
  static char whole[1 << 16];
  n_vsnprintf++;
  int len = vsprintf(whole, fmt, ap);
  volatile char *d = s;
  size_t i = 0;
  for (; n && i < n - 1 && len >= 0 && i < (size_t)len; i++)
    d[i] = whole[i];
  if (n)
    d[i] = 0;
  return len;
}

int snprintf(char *restrict s, size_t n, const char *restrict fmt, ...) {
  va_list ap;
  n_snprintf++;
  va_start(ap, fmt);
  int len = vsnprintf(s, n, fmt, ap);
  va_end(ap);
  return len;
}

static void *(*volatile move_fn)(void *, const void *, size_t) = memmove;
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;
static void *(*volatile set_fn)(void *, int, size_t) = memset;
static size_t (*volatile len_fn)(const char *) = strlen;
static int (*volatile cmp_fn)(const char *, const char *) = strcmp;
static int (*volatile format_fn)(char *, size_t, const char *, ...) = snprintf;

static int wrong;

/* One use of each, checked: 2 moves, 3 copies, 1 fill, 4 lengths, 5
 * compares, 1 formatting. */
__attribute__((noinline)) static void use_each(unsigned r) {
  char a[48], b[48];
  set_fn(a, 'a' + (int)(r % 26), sizeof a - 1);
  a[sizeof a - 1] = 0;
  copy_fn(b, a, sizeof a);
  copy_fn(b + 8, "0123456789", 10);
  copy_fn(a, b, 4);
  move_fn(b + 1, b, 20);
  move_fn(b, b + 1, 20);
  wrong |= b[8] != '0' || b[17] != '9' || b[20] != 'a' + (char)(r % 26);
  wrong |= len_fn(a) != 47 || len_fn(b) != 47 || len_fn("") != 0 || len_fn("abc") != 3;
  wrong |= cmp_fn(a, a) != 0 || cmp_fn("abc", "abd") >= 0 || cmp_fn("b", "a") <= 0 ||
           cmp_fn("", "x") >= 0 || cmp_fn(a, b) == 0;
  char text[8];
  unsigned v = r % 1000;
  int want = 1 + (v > 9) + (v > 99) + 7; /* the digits, '-', "abcdef" */
  wrong |= format_fn(text, sizeof text, "%u-%s", v, "abcdef") != want || text[sizeof text - 1] != 0;
}

__attribute__((noinline)) static unsigned long step(unsigned long x) {
  return x * 2654435761u >> 7;
}

int main(int argc, char **argv) {
  unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 300000;
  unsigned long sum = 0;
  for (unsigned r = 0; r < rounds; r++) {
    sum += step(r);
    if (r % 64 == 0)
      use_each(r);
  }
  printf("sum=%lu memmove=%lu memcpy=%lu memset=%lu strlen=%lu strcmp=%lu snprintf=%lu "
         "vsnprintf=%lu wrong=%d\n",
         sum, n_memmove, n_memcpy, n_memset, n_strlen, n_strcmp, n_snprintf, n_vsnprintf, wrong);
  return wrong;
}
