/* libcalls.c - library calls GCC rewrites or may expand inline, one kind per
 * function, each called ROUNDS times: printf becomes puts or putchar, fputs
 * becomes fwrite, malloc and memset become calloc, sin and cos become sincos;
 * memory functions of constant size, and aggregate copies and clears, are
 * moves or calls depending on the size and the optimisation level.  The
 * program's own output is the same with and without the plugin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 7
#define BIG 8192

struct blob {
  char bytes[BIG];
};
static struct blob b1, b2;
static char small[64], big1[BIG], big2[BIG];
static volatile double angle = 0.5;
static int sink;

__attribute__((noinline)) void say_puts(void) { printf("puts\n"); }
__attribute__((noinline)) void say_puts_s(const char *s) { printf("%s\n", s); }
__attribute__((noinline)) void say_putchar(void) { printf("."); }
__attribute__((noinline)) void say_fwrite(FILE *f) { fputs("fwrite\n", f); }
__attribute__((noinline)) void copy_small(void) { memcpy(small, small + 16, 16); }
__attribute__((noinline)) void copy_big(void) { memcpy(big1, big2, BIG); }
__attribute__((noinline)) void clear_big(void) { memset(big1, 0, BIG); }
__attribute__((noinline)) void move_big(void) { memmove(big1 + 1, big1, BIG - 1); }
__attribute__((noinline)) void compare_big(void) { sink += memcmp(big1, big2, BIG) != 0; }
__attribute__((noinline)) void copy_struct(void) { b1 = b2; }
__attribute__((noinline)) void clear_struct(void) { b1 = (struct blob){ { 0 } }; }
__attribute__((noinline)) void zeroed_block(size_t n)
{
  char *p = (char *)malloc(n);
  memset(p, 0, n);
  sink += p[n / 2];
  free(p);
}
__attribute__((noinline)) void sine_and_cosine(void) { sink += (int)(sin(angle) * 4 + cos(angle) * 4); }

int main(void)
{
  for (int i = 0; i < ROUNDS; i++) {
    say_puts();
    say_puts_s("puts with %s");
    say_putchar();
    say_fwrite(stdout);
    copy_small();
    copy_big();
    clear_big();
    move_big();
    compare_big();
    copy_struct();
    clear_struct();
    zeroed_block(100 + (size_t)i);
    sine_and_cosine();
  }
  printf("\nsink %d\n", sink);
  return 0;
}
