/* crash_after_slow.c - a slow call, then a fatal signal before the
 * snapshot's window has ended: slow() sleeps 20 ms, timed by the program
 * ("slow NS", printed before it dies), then the program raises SIGNAL
 * (argument 1: segv or abrt) at once. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

__attribute__((noinline)) static void slow(void) {
  struct timespec t = {0, 20000000};
  nanosleep(&t, NULL);
}

__attribute__((noinline)) static void fast(void) { __asm__ volatile(""); }

int main(int argc, char **argv) {
  for (int i = 0; i < 1000; i++)
    fast();
  uint64_t t0 = now_ns();
  slow();
  printf("slow %llu\n", (unsigned long long)(now_ns() - t0));
  fflush(stdout);
  raise(argc > 1 && strcmp(argv[1], "abrt") == 0 ? SIGABRT : SIGSEGV);
  return 0;
}
