/* fdo_tailcall.c - an accumulating tail recursion (x * factorial (x - 1)),
 * which GCC's early tail-recursion pass turns into a loop before it takes
 * the profile's checksum of the control flow: a profile made without the
 * plugin must fit the build with it, and the reverse.  Prints 12!. */
#include <stdio.h>

__attribute__((noinline)) unsigned factorial(unsigned x)
{
  if (x == 1)
    return 1;
  else
    return x * factorial(x - 1);
}

int main(void)
{
  printf("%u\n", factorial(12));
  return 0;
}
