/* abnormal.c - frames left without an exit probe: longjmp over two frames,
 * exit() from deep frames, pthread_exit from a thread.  Mode in argv[1]. */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf env;

__attribute__((noinline)) void jump_deep(int n)
{
  if (n == 0)
    longjmp(env, 1);
  jump_deep(n - 1);
  printf("not reached\n");
}

__attribute__((noinline)) void exit_deep(int n)
{
  if (n == 0)
    exit(3);
  exit_deep(n - 1);
  printf("not reached\n");
}

__attribute__((noinline)) void thread_inner(void) { pthread_exit(NULL); }

__attribute__((noinline)) void *thread_main(void *arg)
{
  thread_inner();
  return arg;
}

__attribute__((noinline)) int do_longjmp(void)
{
  if (setjmp(env) == 0) {
    jump_deep(2);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return 2;
  if (strcmp(argv[1], "longjmp") == 0)
    return do_longjmp() == 1 ? 0 : 1;
  if (strcmp(argv[1], "exit") == 0)
    exit_deep(2);
  pthread_t t;
  if (pthread_create(&t, NULL, thread_main, NULL) != 0 || pthread_join(t, NULL) != 0)
    return 1;
  return 0;
}
