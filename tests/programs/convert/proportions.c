/* proportions.c - known work for the converter's end-to-end test: heavy()
 * does three times light()'s work through the same spin(), fib() recurses,
 * write() is a library call reached through a call-site probe. */
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void spin(unsigned long n) {
  for (unsigned long i = 0; i < n; i++)
    sink += i;
}
__attribute__((noinline)) void light(void) { spin(25000); }
__attribute__((noinline)) void heavy(void) { spin(75000); }
/* Work after the second call keeps GCC from turning the recursion into a loop. */
__attribute__((noinline)) int fib(int n) {
  if (n < 2)
    return n;
  int a = fib(n - 1), b = fib(n - 2);
  sink++;
  return a + b;
}

int main(void) {
  for (int i = 0; i < 400; i++) {
    light();
    heavy();
  }
  sink += (unsigned long)fib(10);
  return write(1, "done\n", 5) == 5 ? 0 : 1;
}
