/* own_libc.c - a program that defines memmove, memcpy, memset, strlen and
 * strcmp itself, as embedded code and libc test suites do, each counting
 * its calls (its loops read and write through volatile pointers, so that
 * GCC does not make them calls of the same functions).  A small function
 * called ROUNDS times fills event buffers (two events a call: many flushes
 * for the runtime); every 64th round calls each of the five through
 * volatile pointers (real calls at every -O) and checks what they did.
 * Prints the counts; exits 1 if a result was wrong.  No <string.h>: a
 * definition of a function declared in a system header is not instrumented
 * (docs/plugin.md), and these are to be, as in a freestanding program.
 *   usage: own_libc [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>

static unsigned long n_memmove, n_memcpy, n_memset, n_strlen, n_strcmp;

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

static void *(*volatile move_fn)(void *, const void *, size_t) = memmove;
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;
static void *(*volatile set_fn)(void *, int, size_t) = memset;
static size_t (*volatile len_fn)(const char *) = strlen;
static int (*volatile cmp_fn)(const char *, const char *) = strcmp;

static int wrong;

/* One use of each, checked: 2 moves, 3 copies, 1 fill, 4 lengths, 5 compares. */
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
  printf("sum=%lu memmove=%lu memcpy=%lu memset=%lu strlen=%lu strcmp=%lu wrong=%d\n", sum,
         n_memmove, n_memcpy, n_memset, n_strlen, n_strcmp, wrong);
  return wrong;
}
