/* errno_kept.c - errno across the runtime's work: each of N calls of an
 * instrumented function is made with errno set to EINVAL, and errno is read
 * after it returns (as printf's %m or a caller of strerror(errno) would).
 * N large enough to fill the thread's buffer many times, so the probes take
 * the slow path (handing the buffer to the writer) between the calls.
 * Prints errno as main starts (0, as C starts every program) and the
 * number of calls after which errno was not EINVAL.
 * Usage: errno_kept N */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noipa)) static void leaf(long i) { sink += i; }

int main(int argc, char **argv) {
  int at_start = errno;
  long n = argc > 1 ? atol(argv[1]) : 1000000, changed = 0;
  for (long i = 0; i < n; i++) {
    errno = EINVAL;
    leaf(i);
    changed += errno != EINVAL;
  }
  printf("errno %d as main started\n", at_start);
  printf("errno changed after %ld of %ld calls\n", changed, n);
  return changed != 0 || at_start != 0;
}
