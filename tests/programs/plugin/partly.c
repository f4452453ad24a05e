/* partly.c - a function GCC inlines at one call site and calls out of line
 * at another: step() is called 1000 times in direct_loop (inlined there at
 * -O2) and 1000 times through a pointer in pointer_loop.  step counts its
 * own calls and the program prints the count. */
#include <stdio.h>

static int total, steps;

static void step(int i)
{
  steps++;
  total += i ^ (total >> 3);
}

void (*volatile via)(int) = step;

__attribute__((noinline)) void direct_loop(void)
{
  for (int i = 0; i < 1000; i++)
    step(i);
}

__attribute__((noinline)) void pointer_loop(void)
{
  for (int i = 0; i < 1000; i++)
    via(i);
}

int main(void)
{
  direct_loop();
  pointer_loop();
  printf("steps %d total %d\n", steps, total);
  return 0;
}
