/* main.c - functions that get no row, each for its own reason, beside ones
 * that do: busy (a long loop called once: inlined into main), tiny (inlined
 * into kept), never_called (unused), skipped_by_rule (excluded by the test's
 * exclude= key) and twice (shared.h: inlined here, out of line in other.c). */
#include <stdio.h>

#include "shared.h"

static volatile long sink;
int other(int (*fn)(int), int x);

static long busy(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += i * (i ^ 3);
  return s;
}
static int tiny(int x) { return x + 1; }
__attribute__((noinline)) int kept(int x) { return tiny(x) * 2; }
static void never_called(void) { sink++; }
__attribute__((noinline)) int skipped_by_rule(int x) { return x - 1; }

int main(void) {
  sink = busy(3000000);
  printf("%d %d %d\n", kept(3), skipped_by_rule(twice(5)), other(0, 4));
  return 0;
}
