/* raw_exits.c - ways out that skip exit()'s handlers: "syscall" does work()
 * 5 times, then leaves with syscall(SYS_exit_group, 3); "quick" registers a
 * quick_exit handler that calls work() once, does work() 5 times, then
 * leaves with quick_exit(4).  Each prints its own count of work calls first. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int calls;

__attribute__((noinline)) void work(void) { calls++; }

__attribute__((noinline)) void on_quick_exit(void) {
  work();
  printf("quick handler: %d calls\n", calls);
  fflush(stdout);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && !strcmp(argv[1], "quick");
  if (quick)
    at_quick_exit(on_quick_exit);
  for (int i = 0; i < 5; i++)
    work();
  printf("before the exit: %d calls\n", calls);
  fflush(stdout);
  if (quick)
    quick_exit(4);
  syscall(SYS_exit_group, 3);
  return 0;
}
