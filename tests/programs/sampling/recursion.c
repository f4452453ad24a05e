/* recursion.c - a recursive function for the Inclusive Samples test: each
 * call of nest(depth) computes, recurses (not a tail call) and computes
 * again; flat() computes outside the recursion.  Usage: recursion ROUNDS.
 * Prints the result. */
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

__attribute__((noinline)) unsigned long nest(int depth, unsigned long x) {
  x = spin(x, 2000);
  if (depth > 0)
    x = nest(depth - 1, x) ^ (unsigned long)depth;
  return spin(x, 1000);
}

__attribute__((noinline)) unsigned long flat(unsigned long x) { return spin(x, 8000); }

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 1000;
  unsigned long x = (unsigned long)argc;
  for (long i = 0; i < rounds; i++)
    x = flat(nest(7, x));
  printf("%lu\n", x);
  return 0;
}
