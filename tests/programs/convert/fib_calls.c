/* fib_calls.c - as many calls as asked for: fib(N) (N from the command line,
 * default 30) makes fib(N+1) * 2 - 1 calls of fib, 2 692 537 for N = 30. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

/* Work after the second call keeps GCC from turning the recursion into a loop. */
__attribute__((noinline)) int fib(int n) {
  if (n < 2)
    return n;
  int a = fib(n - 1), b = fib(n - 2);
  sink++;
  return a + b;
}

int main(int argc, char **argv) {
  printf("%d\n", fib(argc > 1 ? atoi(argv[1]) : 30));
  return 0;
}
