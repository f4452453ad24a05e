/* pointer_calls.c - the same small function called N times directly and N
 * times through a pointer, each loop timed by the thread's own CPU clock:
 * a call through a pointer to an instrumented function records no event of
 * its own, only the callee's, and its hooks' time must not stay in the
 * caller.  Prints the calls and each loop's CPU time in ns (the fastest of
 * five rounds). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* About 40 ns of dependent multiply-adds. */
__attribute__((noinline)) unsigned long step(unsigned long x) {
  for (int i = 0; i < 12; i++) {
    x = x * 6364136223846793005ul + 1442695040888963407ul;
    __asm__ __volatile__("" : "+r"(x));
  }
  return x;
}

unsigned long (*volatile step_ptr)(unsigned long) = step;

__attribute__((noinline)) unsigned long direct(long n, unsigned long x) {
  for (long i = 0; i < n; i++)
    x = step(x);
  return x;
}

__attribute__((noinline)) unsigned long through(long n, unsigned long x) {
  unsigned long (*f)(unsigned long) = step_ptr;
  for (long i = 0; i < n; i++)
    x = f(x);
  return x;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000;
  unsigned long x = 1;
  long long best_d = -1, best_t = -1;
  for (int r = 0; r < 5; r++) {
    long long t0 = cpu_ns();
    x = direct(n, x);
    long long t1 = cpu_ns();
    x = through(n, x);
    long long t2 = cpu_ns();
    if (best_d < 0 || t1 - t0 < best_d)
      best_d = t1 - t0;
    if (best_t < 0 || t2 - t1 < best_t)
      best_t = t2 - t1;
  }
  printf("calls %ld\ndirect_ns %lld\nthrough_ns %lld\nresult %lu\n", 5 * n, best_d, best_t, x & 1);
  return 0;
}
