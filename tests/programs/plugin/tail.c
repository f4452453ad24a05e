/* tail.c - calls in tail position: direct, and results merged through a PHI. */
#include <stdio.h>

__attribute__((noinline)) int g(int x) { return x * 7 + 1; }
__attribute__((noinline)) int h(int x) { return x - 2; }
__attribute__((noinline)) int direct(int x) { return g(x); }
__attribute__((noinline)) int merged(int x)
{
  int r;
  if (x & 1)
    r = g(x);
  else
    r = h(x);
  return r;
}

int main(int argc, char **argv)
{
  (void)argv;
  printf("%d\n", direct(argc) + merged(argc) + merged(argc + 1));
  return 0;
}
