/* fork_requests.c - snapshots in a fork child: the process forks, then
 * parent and child each make 200 calls of handle(), every 50th sleeping
 * 8 ms, the others 20 us.  Each times its calls itself (CLOCK_MONOTONIC,
 * inside handle()) and prints "PID N" with N its calls over 5 ms, then the
 * parent waits for the child. */
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t inside_ns;

__attribute__((noinline)) static void handle(int slow) {
  uint64_t t0 = now_ns();
  struct timespec t = {0, slow ? 8000000 : 20000};
  nanosleep(&t, NULL);
  inside_ns = now_ns() - t0;
}

int main(void) {
  pid_t child = fork();
  int over = 0;
  for (int i = 0; i < 200; i++) {
    handle(i % 50 == 49);
    over += inside_ns > 5000000;
  }
  printf("%d %d\n", (int)getpid(), over);
  fflush(stdout);
  if (child > 0)
    waitpid(child, NULL, 0);
  return 0;
}
