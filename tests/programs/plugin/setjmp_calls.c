/* setjmp_calls.c - library calls in functions that call setjmp or
 * __builtin_setjmp, where a longjmp from a function they call comes back
 * three times: strlen and memcpy (leaf functions, which cannot come back
 * that way) are counted at each pass, 4 passes of 2 strlen and 1 memcpy per
 * function.  Prints what it copied and the lengths it added up. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

static jmp_buf env;
static void *builtin_env[5];
static char dst[64];
static const char *volatile src = "setjmp calls";

__attribute__((noinline)) void bail(int round)
{
  longjmp(env, round);
}

__attribute__((noinline)) void bail_builtin(void)
{
  __builtin_longjmp(builtin_env, 1);
}

__attribute__((noinline)) size_t with_setjmp(void)
{
  static volatile int rounds;
  static volatile size_t total;
  setjmp(env);
  total += strlen(src);
  memcpy(dst, src, strlen(src) + 1);
  if (++rounds < 4)
    bail(rounds);
  return total;
}

__attribute__((noinline)) size_t with_builtin_setjmp(void)
{
  static volatile int rounds;
  static volatile size_t total;
  __builtin_setjmp(builtin_env);
  total += strlen(src);
  memcpy(dst + 1, src, strlen(src) + 1);
  if (++rounds < 4)
    bail_builtin();
  return total;
}

int main(void)
{
  size_t a = with_setjmp();
  size_t b = with_builtin_setjmp();
  printf("%s %zu %zu\n", dst, a, b);
  return 0;
}
