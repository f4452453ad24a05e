/* tail_jumps.c - calls in tail position of the kinds call-dense C code has:
 * through a pointer (an allocator's hook), direct ones merged through a
 * return value, a library call, and self-recursion.  main makes N rounds
 * (argv[1], default 1000) and prints its result and N. */
#include <stdio.h>
#include <stdlib.h>

typedef int (*op_fn)(int);

__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
op_fn volatile op = leaf;

/* A tail call through a pointer, after a test. */
__attribute__((noinline)) int via_pointer(int x)
{
  if (x < 0)
    return 0;
  return op(x);
}

/* Two tail calls of leaf, the result merged. */
__attribute__((noinline)) int either(int x)
{
  if (x & 1)
    return leaf(x);
  return leaf(x + 1);
}

/* A tail call of a library function. */
__attribute__((noinline)) long parse(const char *text) { return strtol(text, NULL, 10); }

/* Self-recursion in tail position: stays recursion, X + 1 calls. */
__attribute__((noinline)) int countdown(int x)
{
  if (x <= 0)
    return 0;
  return countdown(x - 1);
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  long s = 0;
  for (int i = 0; i < n; i++)
    s += via_pointer(i) + either(i) + parse("12") + countdown(i & 3);
  printf("%ld %d\n", s, n);
  return 0;
}
