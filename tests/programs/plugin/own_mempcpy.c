/* own_mempcpy.c - the program's own mempcpy, for redirected.c: instrumented,
 * so the calls of mempcpy that stay calls are counted by its probes, and a
 * call GCC made of memcpy instead is still counted as memcpy. */
#include <stddef.h>

void *mempcpy(void *dest, const void *src, size_t n)
{
  char *d = dest;
  const char *s = src;
  while (n--)
    *d++ = *s++;
  return d;
}
