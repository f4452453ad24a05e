/* indirect_calls.c - calls through function pointers: to instrumented
 * functions of the program, to lib_step of the instrumented library it is
 * linked with (indirect_lib.c), to lib_step of an uninstrumented build of
 * that library opened with dlopen.  Prints how often it calls each.
 * Usage: indirect_calls N PLAIN_LIB */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef long (*step_fn)(long);
long lib_step(long x);

static __attribute__((noinline)) long twice(long x) { return 2 * x; }
static __attribute__((noinline)) long plus_one(long x) { return x + 1; }

/* n calls through a pointer the compiler cannot see through. */
static __attribute__((noinline)) long call_n(step_fn f, long n) {
  step_fn volatile g = f;
  long s = 0;
  for (long i = 0; i < n; i++)
    s += g(i) & 1023;
  return s;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  long n = atol(argv[1]);
  void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  step_fn plain = h ? (step_fn)(uintptr_t)dlsym(h, "lib_step") : NULL;
  if (!plain) {
    fprintf(stderr, "indirect_calls: %s: %s\n", argv[2], dlerror());
    return 1;
  }
  long s = call_n(twice, n) + call_n(plus_one, 2 * n) + call_n(lib_step, n) + call_n(plain, n);
  printf("twice %ld\nplus_one %ld\nlib_step %ld %ld\nsum %ld\n", n, 2 * n, n, n, s);
  return 0;
}
