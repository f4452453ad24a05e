/* deep_paths.c - call paths that rarely repeat: N times, a recursion 64
 * deep through step() and one of fa, fb, fc chosen at each level by a
 * fixed pseudo-random sequence, as an interpreter nests its evaluation
 * loop in the calls of the program it runs.  Prints the calls it made.
 * Usage: deep_paths N */
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 1;
static unsigned long calls_f, calls_step;
static int fa(int d);
static int fb(int d);
static int fc(int d);

__attribute__((noinline)) static int step(int d) {
  calls_step++;
  if (!d)
    return 1;
  seed = seed * 1103515245u + 12345u;
  switch ((seed >> 16) % 3) {
  case 0:
    return fa(d - 1);
  case 1:
    return fb(d - 1);
  default:
    return fc(d - 1);
  }
}

__attribute__((noinline)) static int fa(int d) { return calls_f++, step(d) + 1; }
__attribute__((noinline)) static int fb(int d) { return calls_f++, step(d) + 2; }
__attribute__((noinline)) static int fc(int d) { return calls_f++, step(d) + 3; }

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  long sum = 0;
  for (long i = 0; i < n; i++)
    sum += step(64);
  printf("step %lu fabc %lu sum %ld\n", calls_step, calls_f, sum);
  return 0;
}
