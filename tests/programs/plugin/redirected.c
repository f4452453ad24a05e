/* redirected.c - library calls that GCC turns into calls of another function
 * when it compiles them to RTL, after the plugin's pass: with optimisation
 * a mempcpy whose result is unused is a call of memcpy; with the result used
 * it stays (glibc has a fast mempcpy).  A stpcpy whose result is unused is a
 * call of strcpy already before the pass, at every -O level.  The sizes and
 * strings are not known to GCC, so each stays a call.  Built alone or with own_mempcpy.c, the program's own
 * (instrumented) mempcpy.  Prints what it copied and how many calls each
 * function made. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

static char buf[64];
static const char *volatile text = "redirected calls";
static volatile size_t size = 10;

__attribute__((noinline)) void copy_unused(int k)
{
  for (int i = 0; i < k; i++)
    mempcpy(buf + i % 4, text, size);
}

__attribute__((noinline)) char *copy_used(int k)
{
  char *end = buf;
  for (int i = 0; i < k; i++)
    end = mempcpy(buf + i % 4, text, size);
  return end;
}

__attribute__((noinline)) void string_unused(int k)
{
  for (int i = 0; i < k; i++)
    stpcpy(buf + i % 4, text);
}

__attribute__((noinline)) char *string_used(int k)
{
  char *end = buf;
  for (int i = 0; i < k; i++)
    end = stpcpy(buf + i % 4, text);
  return end;
}

int main(void)
{
  copy_unused(10);
  long a = copy_used(20) - buf;
  string_unused(30);
  long b = string_used(40) - buf;
  printf("%s %ld %ld\n", buf, a, b);
  printf("copy_unused=10 copy_used=20 string_unused=30 string_used=40\n");
  return 0;
}
