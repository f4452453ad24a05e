/* alloc_pool.c - malloc and calloc from a static pool, free doing nothing,
 * no realloc (GCC's tree-prof test pr97461 has this shape): each allocation
 * also calls f1 or f2 through a table by the size's parity, and a call of
 * malloc or calloc while another runs traps.  A runtime that called this
 * malloc from a probe of it, or glibc's realloc on a block of this pool,
 * would crash the program.  Prints how often each ran. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int depth, n_malloc, n_calloc, n_f1, n_f2;
static _Alignas(16) char memory[128 * 1024];
static size_t used;

void f1(void) { n_f1++; }
void f2(void) { n_f2++; }

typedef void (*fun_t)(void);
static const fun_t funs[2] = {f1, f2};

static void *take(size_t size) {
  void *r = &memory[used];
  used += (size + 15) & ~(size_t)15;
  if (used > sizeof memory)
    __builtin_trap();
  funs[size % 2]();
  return r;
}

void *malloc(size_t size) {
  if (depth)
    __builtin_trap();
  depth++, n_malloc++;
  void *r = take(size);
  depth--;
  return r;
}

void *calloc(size_t n, size_t size) {
  if (depth)
    __builtin_trap();
  depth++, n_calloc++;
  void *r = take(n * size);
  memset(r, 0, n * size);
  depth--;
  return r;
}

void free(void *p) { (void)p; }

int main(void) {
  void *p = malloc(8);
  void *q = calloc(3, 3);
  char line[100];
  int n = snprintf(line, sizeof line, "malloc=%d calloc=%d f1=%d f2=%d\n", n_malloc, n_calloc, n_f1,
                   n_f2);
  return p && q && write(1, line, (size_t)n) == n ? 0 : 1;
}
