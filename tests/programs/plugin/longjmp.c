/* longjmp.c - error recovery by longjmp into a function that never returns
 * (the main loop of PostgreSQL, Lua, interpreters).  Mode in argv[1]:
 *   loop    main calls sigsetjmp, then fail1 -> fail2 -> fail3 -> siglongjmp
 *           back to it, 5 times
 *   nested  3 steps, each an inner try block (a callee with its own
 *           sigsetjmp, left by a longjmp and returning normally), then a
 *           longjmp out of fail1..fail3 to main's outer one
 *   signal  4 times a signal handler siglongjmps to main from spin2
 * Prints how often it recovered. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf outer, *inner;
static volatile int sink;

__attribute__((noinline)) void fail3(int i)
{
  sink += i;
  siglongjmp(outer, 1);
}
__attribute__((noinline)) void fail2(int i)
{
  sink += i;
  fail3(i + 1);
}
__attribute__((noinline)) void fail1(int i)
{
  sink += i;
  fail2(i + 1);
}

__attribute__((noinline)) void deep2(void) { siglongjmp(*inner, 1); }
__attribute__((noinline)) void deep1(void)
{
  sink++;
  deep2();
}
__attribute__((noinline)) int try_inner(void)
{
  sigjmp_buf here;
  inner = &here;
  if (sigsetjmp(here, 0) == 0) {
    deep1();
    return 0;
  }
  return 1;
}
__attribute__((noinline)) void step(int i)
{
  sink += try_inner();
  fail1(i);
}

__attribute__((noinline)) void on_signal(int sig)
{
  sink += sig;
  siglongjmp(outer, 1);
}
__attribute__((noinline)) void spin2(void) { raise(SIGUSR1); }
__attribute__((noinline)) void spin1(void)
{
  sink++;
  spin2();
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "loop";
  int times = !strcmp(mode, "nested") ? 3 : !strcmp(mode, "signal") ? 4 : 5;
  signal(SIGUSR1, on_signal);
  volatile int n = 0;
  sigsetjmp(outer, 1);
  if (n < times) {
    n++;
    if (!strcmp(mode, "nested"))
      step(n);
    else if (!strcmp(mode, "signal"))
      spin1();
    else
      fail1(n);
  }
  printf("recovered %d\n", n);
  return 0;
}
