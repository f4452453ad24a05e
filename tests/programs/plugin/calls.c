/* calls.c - balance, inlining and exact call counts. */
#include <stdio.h>

static int helper(int x) { return x * 3 + 1; }   /* inlined at -O2 */

__attribute__((noinline)) int leaf(int x) { return helper(x) ^ 5; }

__attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) int loop(int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += leaf(i);
  return s;
}

int main(int argc, char **argv)
{
  (void)argv;
  int r = loop(10) + fib(argc + 5);
  printf("%d\n", r);
  return 0;
}
