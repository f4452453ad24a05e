/* many_live.c - twelve worker processes that stay alive: each computes,
 * then waits until the file "stop" exists in the current directory (at most
 * 60 s), as a server's workers would while a report is read; the parent
 * waits for them.  Prints "worker PID" for each. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 12

__attribute__((noinline)) static unsigned long work(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++)
    s += i ^ (s >> 3);
  return s;
}

__attribute__((noinline)) static void serve(void) {
  work(10000);
  for (int i = 0; i < 3000 && access("stop", F_OK) != 0; i++)
    usleep(20000);
}

int main(void) {
  for (int k = 0; k < WORKERS; k++) {
    pid_t p = fork();
    if (p == 0) {
      serve();
      return 0;
    }
    printf("worker %d\n", (int)p);
    fflush(stdout); /* nothing buffered for the next child to print again */
  }
  work(1000);
  while (wait(NULL) > 0)
    ;
  return 0;
}
