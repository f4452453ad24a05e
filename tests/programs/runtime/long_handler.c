/* long_handler.c - a server's pattern: the main loop does little, its
 * signal handlers do the work (PostgreSQL's postmaster reaps children, logs
 * and starts workers in its SIGCHLD and SIGUSR1 handlers).  main calls
 * tick() N times and raises SIGUSR1 every 100 ticks; the handler, which
 * blocks every other signal as PostgreSQL's do, calls work() W times: more
 * than a buffer's worth of events when W is over 8 192.
 *   long_handler warm N W: 20 000 ticks first, before any handler (a
 *     buffer filled outside a handler, which starts the writer thread);
 *   long_handler cold N W: the handler fills the process's first buffer.
 * Prints "tick COUNT" and "work COUNT", the calls it made. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;
static unsigned long ticks, works, per_signal;

__attribute__((noinline)) void work(unsigned long i) {
  sink += i;
  works++;
}

__attribute__((noinline)) void tick(unsigned long i) {
  sink ^= i;
  ticks++;
}

static void on_usr1(int sig) {
  (void)sig;
  for (unsigned long i = 0; i < per_signal; i++)
    work(i);
}

int main(int argc, char **argv) {
  if (argc != 4 || (strcmp(argv[1], "warm") && strcmp(argv[1], "cold"))) {
    fprintf(stderr, "usage: long_handler warm|cold N W\n");
    return 2;
  }
  unsigned long n = strtoul(argv[2], NULL, 10);
  per_signal = strtoul(argv[3], NULL, 10);
  if (!strcmp(argv[1], "warm"))
    for (unsigned long i = 0; i < 20000; i++)
      tick(i);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigfillset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);
  for (unsigned long i = 0; i < n; i++) {
    tick(i);
    if (i % 100 == 99)
      raise(SIGUSR1);
  }
  printf("tick %lu\nwork %lu\n", ticks, works);
  return 0;
}
