/* pointer_call_run.c - ROUNDS runs of a loop of N calls through a pointer
 * to a function whose calls a filter excludes (built with exclude=step and
 * exclude-calls=step), with no other event in the loop: every call leaves
 * only a pointer call's mark, N of them in a row, more than a thread's
 * buffer holds.  Prints the calls made through the pointer. */
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 41

/* About 65 ns of dependent multiply-adds: longer than the hooks' calibrated
 * cost even on a loaded machine, so that no interval is shorter than what
 * compensation takes from it. */
__attribute__((noinline)) unsigned long step(unsigned long x) {
  for (int i = 0; i < 48; i++) {
    x = x * 6364136223846793005ul + 1442695040888963407ul;
    __asm__ __volatile__("" : "+r"(x));
  }
  return x;
}

unsigned long (*volatile step_ptr)(unsigned long) = step;

__attribute__((noinline)) unsigned long run(long n, unsigned long x) {
  unsigned long (*f)(unsigned long) = step_ptr;
  for (long i = 0; i < n; i++)
    x = f(x);
  return x;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 25000;
  unsigned long x = 1;
  for (int r = 0; r < ROUNDS; r++)
    x = run(n, x);
  printf("calls %ld\nresult %lu\n", ROUNDS * n, x & 1);
  return 0;
}
