/* nap_seconds.c - one thread blocked for SECONDS in one call: main calls
 * nap(), which sleeps that long in one nanosleep, then returns.
 * Usage: nap_seconds SECONDS */
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static void nap(double seconds) {
  struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&t, &t) != 0)
    ;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  nap(atof(argv[1]));
  return 0;
}
