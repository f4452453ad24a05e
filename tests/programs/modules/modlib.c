/* modlib.c - an instrumented shared library, built twice under two prefixes
 * (-DLIB=one, -DLIB=two): LIB_entry(n) calls LIB_leaf n times and returns
 * how many leaf calls it made. */
#ifndef LIB
#error "build with -DLIB=name"
#endif
#define CAT2(a, b) a##_##b
#define CAT(a, b)  CAT2(a, b)

static volatile unsigned sink;

__attribute__((noinline)) void CAT(LIB, leaf)(unsigned i) { sink += i; }

unsigned CAT(LIB, entry)(unsigned n) {
  for (unsigned i = 0; i < n; i++)
    CAT(LIB, leaf)(i);
  return n;
}
