/* alloc_next.c - malloc wraps libc's, found with dlsym(RTLD_NEXT) on its
 * first call, and calls report1 or report2 through a table by the size's
 * parity; calloc is malloc plus memset (GCC's tree-prof test
 * indir-call-prof-malloc has this shape).  A runtime that allocated while
 * this malloc looks libc's up, or called it from inside its own thread's
 * creation, would hang or crash it.  Prints how often each ran. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int n_malloc, n_calloc, n_report1, n_report2;

void report1(size_t size) { (void)size, n_report1++; }
void report2(size_t size) { (void)size, n_report2++; }

typedef void (*report_t)(size_t);
static const report_t reports[] = {report1, report2};

void *malloc(size_t size) {
  static void *(*real_malloc)(size_t);
  if (!real_malloc)
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
  n_malloc++;
  void *p = real_malloc(size);
  reports[size % 2](size);
  return p;
}

void *calloc(size_t n, size_t size) {
  n_calloc++;
  void *p = malloc(n * size);
  memset(p, 0, n * size);
  return p;
}

void *kept;

int main(void) {
  kept = malloc(16);
  char line[100];
  int n = snprintf(line, sizeof line, "malloc=%d calloc=%d report1=%d report2=%d\n", n_malloc,
                   n_calloc, n_report1, n_report2);
  return kept && write(1, line, (size_t)n) == n ? 0 : 1;
}
