/* many_calls.c - as many calls as asked for: main calls leaf() N times (N
 * from the command line, default 2 700 000). */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void leaf(unsigned long i) { sink += i; }

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 2700000;
  for (unsigned long i = 0; i < n; i++)
    leaf(i);
  printf("%lu\n", (unsigned long)sink);
  return 0;
}
