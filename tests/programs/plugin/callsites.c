/* callsites.c - library calls, an indirect call, inline builtins, a function
 * calling setjmp, and abort. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int target(int x) { return x + 1; }
int (*volatile fp)(int) = target;
static jmp_buf jb;

__attribute__((noinline)) int with_setjmp(int x)
{
  if (setjmp(jb))
    return 1;
  printf("setjmp fn %d\n", x);
  return 0;
}

__attribute__((noinline)) int builtins(const char *s, char *d)
{
  memcpy(d, s, 8);
  return __builtin_popcount((unsigned)s[1]) + __builtin_expect(s[0] == 'a', 1);
}

int main(int argc, char **argv)
{
  char buf[16];
  (void)argv;
  if (write(1, "hi\n", 3) != 3)
    return 2;
  printf("%d\n", fp(argc));
  with_setjmp(argc);
  printf("%d\n", builtins("abcdefgh", buf));
  fflush(stdout);
  if (argc > 1)
    abort();
  return 0;
}
