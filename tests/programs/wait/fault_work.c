/* fault_work.c - page faults among plain computation, for
 * tests/integration/wait_page_faults.sh.  fault_worker() writes one byte to
 * each of N fresh pages with about 20 us of arithmetic before each, and no
 * call (so no probe) in its loop: one interval holding N page faults and
 * mostly user code.  compute_twin() runs the same arithmetic without the
 * pages, once before and once after.  Then syscaller() makes M getppid()
 * system calls, each inside its own interval (the call's probes).  Prints,
 * measured apart from inclprof:
 *   truth pages N             the pages fault_worker() touched;
 *   truth worker_cpu NS       its loop's CPU time (CLOCK_THREAD_CPUTIME_ID);
 *   truth twin_cpu NS1 NS2    compute_twin()'s loop, before and after. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define STEPS 16000 /* multiply-adds per page: about 20 us */

/* STEPS dependent multiply-adds on x, written out where used (a function
 * would bring its probes into the loop). */
#define ARITHMETIC(x, mul)                                                                         \
  for (long s_ = 0; s_ < STEPS; s_++)                                                              \
  (x) = (x) * (mul) + 1442695040888963407ull

static volatile uint64_t sink, multiplier = 6364136223846793005ull;

static uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) uint64_t fault_worker(volatile char *p, long pages, long page) {
  uint64_t mul = multiplier, x = 1;
  uint64_t c0 = cpu_ns();
  for (long i = 0; i < pages; i++) {
    ARITHMETIC(x, mul);
    p[i * page] = (char)x;
  }
  uint64_t c1 = cpu_ns();
  sink = x;
  return c1 - c0;
}

__attribute__((noinline)) uint64_t compute_twin(long pages) {
  uint64_t mul = multiplier, x = 1;
  uint64_t c0 = cpu_ns();
  for (long i = 0; i < pages; i++) {
    ARITHMETIC(x, mul);
    sink = x;
  }
  uint64_t c1 = cpu_ns();
  return c1 - c0;
}

__attribute__((noinline)) void syscaller(long calls) {
  for (long i = 0; i < calls; i++)
    sink += (uint64_t)getppid();
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 500, calls = argc > 2 ? atol(argv[2]) : 1000;
  long page = sysconf(_SC_PAGESIZE);
  if (n <= 0 || calls < 0 || page <= 0) {
    fprintf(stderr, "usage: fault_work PAGES [SYSCALLS]\n");
    return 2;
  }
  size_t len = (size_t)n * (size_t)page;
  char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("fault_work: mmap");
    return 1;
  }
  madvise(p, len, MADV_NOHUGEPAGE); /* one fault per page */
  uint64_t twin0 = compute_twin(n);
  uint64_t worker = fault_worker(p, n, page);
  uint64_t twin1 = compute_twin(n);
  syscaller(calls);
  printf("truth pages %ld\n", n);
  printf("truth worker_cpu %llu\n", (unsigned long long)worker);
  printf("truth twin_cpu %llu %llu\n", (unsigned long long)twin0, (unsigned long long)twin1);
  munmap(p, len);
  return 0;
}
