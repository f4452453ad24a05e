/* xunit_main.c - calls into another translation unit (xunit_lib.c): the
 * plugin gives those calls call-site probes (it cannot see that the callee
 * is instrumented), the runtime switches them off once both units are
 * registered, so only the callee's own probes record. */
#include <stdio.h>

int scale(int x);
int offset(int x);

int main(void) {
  long s = 0;
  for (int i = 0; i < 1000; i++)
    s += scale(i) + offset(i);
  printf("%ld\n", s);
  return 0;
}
