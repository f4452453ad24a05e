/* split.c - a function GCC's ipa-split cuts in two at -O2 and -O3: a cheap
 * head (the early return) that callers inline, and a process.part.N rest
 * (the loops, with a rarely taken printf).  main calls it 1000 times
 * directly and 10 times through a pointer (the out-of-line head).
 * usage: split [ROUNDS] - the 1000 direct calls ROUNDS times (default 1; for
 * timing). */
#include <stdio.h>
#include <stdlib.h>

int process(const int *v, int n)
{
  if (n <= 0)
    return 0;
  int s = 0;
  for (int i = 0; i < n; i++) {
    s += v[i] * 3 + (v[i] >> 2);
    if (s % 1000003 == 7)
      printf("rare %d at %d of %d (%d %d %d)\n", s, i, n, v[0], v[1], v[2]);
    s ^= s >> 7;
    s += v[(i * 7) & 63] / (v[(i * 3) & 63] | 1);
    s -= v[(i * 5) & 63] % (v[(i * 11) & 63] | 1);
  }
  for (int i = 0; i < n; i++)
    s += v[i] * v[n - 1 - i] + (s >> 3);
  return s;
}

int process_twice(const int *v, int n) { return process(v, n) + process(v + 1, n - 1); }

int main(int argc, char **argv)
{
  long rounds = argc > 1 ? atol(argv[1]) : 1;
  int v[64];
  for (int i = 0; i < 64; i++)
    v[i] = i + 1;
  long t = 0;
  for (long r = 0; r < rounds; r++)
    for (int k = 0; k < 1000; k++)
      t += process(v, k % 64 - 10);
  int (*volatile indirect)(const int *, int) = process;
  for (int k = 0; k < 10; k++)
    t += indirect(v, k - 2);
  printf("%ld\n", t);
  return 0;
}
