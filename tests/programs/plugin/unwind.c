/* unwind.c - probes of every kind (entry, exit, call-site, indirect, adjacent
 * ones) around small functions whose arguments and results must survive
 * them: an int leaf, a double leaf, one of six arguments; the hooks of
 * btrt.c unwind from inside each probe. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }

__attribute__((noinline)) double half(double d) { return d * 0.5; }

__attribute__((noinline)) long six(long a, long b, long c, long d, long e, long f) {
  return a - b + c * d - e * f;
}

int add1(int x) { return x + 1; }
int (*volatile through)(int) = add1;

__attribute__((noinline)) int mid(int x) {
  int r = leaf(x) + leaf(x + 1);
  return r + through(x) + abs(x - 9);
}

/* n is argc (1): arguments no GCC knows, so no call is computed away. */
int main(int n, char **argv) {
  (void)argv;
  int m = mid(4);
  puts("one");
  puts("two");
  printf("%d %g %ld\n", m, half(5.0 * n), six(n, 2 * n, 3 * n, 4 * n, 5 * n, 6 * n));
  return 0;
}
