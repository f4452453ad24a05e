/* thousand_calls.c - 1000 calls of one function, a printed result and the
 * exit status 7: a program whose output and status a recording must leave
 * alone (runtime_settings.sh, runtime_calibration_cache.sh). */
#include <stdio.h>
__attribute__((noinline)) static unsigned f(unsigned x) { return x * 2654435761u + 1; }
int main(void) {
  unsigned s = 0;
  for (unsigned i = 0; i < 1000; i++)
    s = f(s);
  printf("%u\n", s);
  return 7;
}
