/* fault_spans.c - long intervals between probes that hold page faults, or
 * none: `fault_spans spans PAGES STEPS` runs one call of spans(), which
 * stores into PAGES fresh pages with STEPS steps of arithmetic after each
 * (no probe inside: one interval holding every fault) and prints the CPU
 * time it measured itself; `fault_spans calls N` makes N short calls, each
 * its own interval, with no fresh page.  tests/integration/report_other_note.sh */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

__attribute__((noinline)) double spans(char *mem, long pages, long steps) {
  double x = 1.0;
  long pg = sysconf(_SC_PAGESIZE);
  for (long p = 0; p < pages; p++) {
    mem[p * pg] = 1;
    for (long i = 0; i < steps; i++)
      x = x * 1.0000001 + 0.5;
  }
  return x;
}

__attribute__((noinline)) double step(double x) { return x * 1.0000001 + 0.5; }

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "spans")) {
    long pages = atol(argv[2]), steps = atol(argv[3]);
    char *mem = mmap(NULL, (size_t)pages * (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
      return 1;
    madvise(mem, (size_t)pages * (size_t)sysconf(_SC_PAGESIZE), MADV_NOHUGEPAGE);
    double t0 = cpu_ms(), x = spans(mem, pages, steps);
    printf("spans: %.3f ms of CPU (%g)\n", cpu_ms() - t0, x);
    return 0;
  }
  if (argc == 3 && !strcmp(argv[1], "calls")) {
    double x = 1.0;
    for (long i = atol(argv[2]); i > 0; i--)
      x = step(x);
    printf("calls: %g\n", x);
    return 0;
  }
  fprintf(stderr, "usage: fault_spans spans PAGES STEPS | fault_spans calls N\n");
  return 2;
}
