/* filt.c - one function per filter rule the tests exercise. */
#include <stdio.h>
#include <sysfn.h>

__attribute__((no_instrument_function, noinline)) int quiet(int x) { return x + 100; }
__attribute__((noinline)) int hot_a(int x) { return x * 2; }
__attribute__((noinline)) int hot_b(int x) { return x * 3; }
__attribute__((noinline)) int cold_c(int x) { return x * 5; }
__attribute__((noinline)) int debug_dump(int x) { return x - 1; }
__attribute__((noinline)) int tiny(int x) { return x + 1; }
__attribute__((noinline)) int small_loop(int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i;
  return s;
}

int main(int argc, char **argv)
{
  (void)argv; /* argc (1): GCC cannot compute the static sys_helper's call away */
  int r = quiet(1) + hot_a(2) + hot_b(3) + cold_c(4) + debug_dump(5) + tiny(6) + small_loop(7) +
          sys_helper(argc + 7);
  printf("%d\n", r);
  return 0;
}
