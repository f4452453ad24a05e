/* heap_sort.c - sorting in place without allocation, so also in a signal
 * handler: qsort may call malloc, which the program may define itself.  A
 * heapsort (n log n whatever the order; not stable, so callers order by a
 * total key). */
#include <string.h>

#include "rt.h"

#define MAX_ELEMENT 64u /* bytes an element may have (a swap goes through the stack) */

static void swap(unsigned char *a, unsigned char *b, size_t size) {
  unsigned char t[MAX_ELEMENT];
  memcpy(t, a, size);
  memcpy(a, b, size);
  memcpy(b, t, size);
}

static void sift_down(unsigned char *e, size_t size, size_t at, size_t n, ip_before_fn *before) {
  for (;;) {
    size_t big = at, l = 2 * at + 1, r = l + 1;
    if (l < n && before(e + big * size, e + l * size))
      big = l;
    if (r < n && before(e + big * size, e + r * size))
      big = r;
    if (big == at)
      return;
    swap(e + at * size, e + big * size, size);
    at = big;
  }
}

void ip_heap_sort(void *base, size_t n, size_t size, ip_before_fn *before) {
  unsigned char *e = base;
  if (size > MAX_ELEMENT)
    return; /* no caller's elements are this large */
  for (size_t i = n / 2; i-- > 0;)
    sift_down(e, size, i, n, before);
  for (size_t end = n; end > 1; end--) {
    swap(e, e + (end - 1) * size, size);
    sift_down(e, size, 0, end - 1, before);
  }
}
