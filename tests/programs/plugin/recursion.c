/* recursion.c - recursion the way GCC likes to rewrite it: a self-recursive
 * function that tail-recursion elimination turns into a loop (with an
 * accumulator), a plain tail recursion carrying its accumulator, and a
 * mutually recursive pair (kept out of line, so each call is a call).
 * usage: recursion [N] (default 30): each function recurses N levels. */
#include <stdio.h>
#include <stdlib.h>

static int depth(int d) { return d ? depth(d - 1) + 1 : 0; }

static long sum(int n, long acc) { return n ? sum(n - 1, acc + n) : acc; }

static int is_odd(int n);
__attribute__((noinline)) static int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
__attribute__((noinline)) static int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 30;
  printf("%d %ld %d %d\n", depth(n), sum(n, 0), is_even(n), is_odd(n + 1));
  return 0;
}
