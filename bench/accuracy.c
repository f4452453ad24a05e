/* accuracy.c - the workload of `make bench-accuracy`: one thread kind per
 * root function (acc_<kind>), each calling its own small function
 * (small_<kind>) in a loop with its kind of kernel work between the calls.
 *   accuracy real: the program as written (system calls, sleeps, faults,
 *                  blocking, more runnable threads than CPUs);
 *   accuracy twin: the same loops and calls with the kernel work left out
 *                  (no system call, sleep or fault inside the measured work;
 *                  the crowd's threads run one at a time).
 * Each thread times its own root function and prints one line per kind:
 *   <kind> <threads> <calls> <cpu_ns> <wall_ns> <loop_ns>
 * summed over the kind's threads: cpu_ns is CLOCK_THREAD_CPUTIME_ID, wall_ns
 * CLOCK_MONOTONIC, loop_ns (twin only) the CPU time of the same loop calling
 * an empty function instead, which the per-call truth leaves out. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int twin;

/* About 1.3 ns per step: a dependent multiply-add the compiler cannot fold. */
static inline __attribute__((always_inline)) uint64_t spin(uint64_t x, int steps) {
  for (int i = 0; i < steps; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    __asm__ volatile("" : "+r"(x));
  }
  return x;
}

#define SMALL(name, steps)                                                                         \
  __attribute__((noinline)) uint64_t small_##name(uint64_t x) { return spin(x, steps); }
SMALL(compute50, 40)
SMALL(compute200, 180)
SMALL(compute1000, 900)
SMALL(syscall100, 90)
SMALL(syscall1000, 900)
SMALL(syscall10000, 9000)
SMALL(sleep, 900)
SMALL(fault, 280)
SMALL(lock_waiter, 900)
SMALL(lock_holder, 900)
SMALL(crowd, 900)

__attribute__((noinline)) uint64_t small_empty(uint64_t x) {
  __asm__ volatile("" : "+r"(x));
  return x;
}

static uint64_t now_ns(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct tally {
  uint64_t calls, cpu, wall, loop;
};

/* The kernel work, skipped by the twin.  getppid is a real system call (no
 * vDSO) that does almost nothing. */
static void cheap_syscall(void) {
  if (!twin)
    getppid();
}

#define N_SYSCALL100   400000
#define N_SYSCALL1000  60000
#define N_SYSCALL10000 6000
#define SLEEP_BURSTS   20
#define BURST_CALLS    2000
#define FAULT_PAGES    40000
#define LOCK_ROUNDS    100
#define CROWD_CALLS    20000

/* The twin's loop overhead: the same loop calling an empty function. */
static uint64_t loop_cost(uint64_t calls) {
  if (!twin)
    return 0;
  uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), x = 1;
  for (uint64_t i = 0; i < calls; i++)
    x = small_empty(x);
  __asm__ volatile("" ::"r"(x));
  return now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
}

#define TIMED(t, calls_, ...)                                                                      \
  do {                                                                                             \
    uint64_t c0_ = now_ns(CLOCK_THREAD_CPUTIME_ID), w0_ = now_ns(CLOCK_MONOTONIC);                 \
    __VA_ARGS__;                                                                                   \
    (t)->wall = now_ns(CLOCK_MONOTONIC) - w0_;                                                     \
    (t)->cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0_;                                              \
    (t)->calls = (calls_);                                                                         \
  } while (0)

#define COMPUTE_KIND(name, n)                                                                      \
  void acc_##name(struct tally *t) {                                                               \
    TIMED(t, n, {                                                                                  \
      uint64_t x = 1;                                                                              \
      for (int i = 0; i < (n); i++)                                                                \
        x = small_##name(x);                                                                       \
      __asm__ volatile("" ::"r"(x));                                                               \
    });                                                                                            \
  }
COMPUTE_KIND(compute50, 600000)
COMPUTE_KIND(compute200, 150000)
COMPUTE_KIND(compute1000, 40000)

#define SYSCALL_KIND(name, n)                                                                      \
  void acc_##name(struct tally *t) {                                                               \
    TIMED(t, n, {                                                                                  \
      uint64_t x = 1;                                                                              \
      for (int i = 0; i < (n); i++) {                                                              \
        x = small_##name(x);                                                                       \
        cheap_syscall();                                                                           \
      }                                                                                            \
      __asm__ volatile("" ::"r"(x));                                                               \
    });                                                                                            \
  }
SYSCALL_KIND(syscall100, N_SYSCALL100)
SYSCALL_KIND(syscall1000, N_SYSCALL1000)
SYSCALL_KIND(syscall10000, N_SYSCALL10000)

void acc_sleep(struct tally *t) {
  TIMED(t, SLEEP_BURSTS * BURST_CALLS, {
    uint64_t x = 1;
    for (int b = 0; b < SLEEP_BURSTS; b++) {
      for (int i = 0; i < BURST_CALLS; i++)
        x = small_sleep(x);
      if (!twin) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
      }
    }
    __asm__ volatile("" ::"r"(x));
  });
}

/* One store into a fresh page per call.  The twin stores into pages faulted
 * in beforehand, in the same order: the same TLB misses and stores, no
 * fault. */
static char *fault_region;
void acc_fault(struct tally *t) {
  long pg = sysconf(_SC_PAGESIZE);
  TIMED(t, FAULT_PAGES, {
    uint64_t x = 1;
    for (long i = 0; i < FAULT_PAGES; i++) {
      fault_region[i * pg] = (char)x;
      x = small_fault(x);
    }
    __asm__ volatile("" ::"r"(x));
  });
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cv = PTHREAD_COND_INITIALIZER;
static int turn;
/* Each round the holder works 200 calls with the lock held, then passes the
 * turn; the waiter works 20 calls and waits on the condition variable for
 * the turn (blocked for most of the holder's round), then one call more. */
void acc_lock_holder(struct tally *t) {
  TIMED(t, LOCK_ROUNDS * 200, {
    uint64_t x = 1;
    for (int r = 1; r <= LOCK_ROUNDS; r++) {
      if (!twin)
        pthread_mutex_lock(&lock);
      for (int i = 0; i < 200; i++)
        x = small_lock_holder(x);
      if (!twin) {
        turn = r;
        pthread_cond_signal(&turn_cv);
        pthread_mutex_unlock(&lock);
      }
    }
    __asm__ volatile("" ::"r"(x));
  });
}
void acc_lock_waiter(struct tally *t) {
  TIMED(t, LOCK_ROUNDS * 21, {
    uint64_t x = 1;
    for (int r = 1; r <= LOCK_ROUNDS; r++) {
      for (int i = 0; i < 20; i++)
        x = small_lock_waiter(x);
      if (!twin) {
        pthread_mutex_lock(&lock);
        while (turn < r)
          pthread_cond_wait(&turn_cv, &lock);
        pthread_mutex_unlock(&lock);
      }
      x = small_lock_waiter(x);
    }
    __asm__ volatile("" ::"r"(x));
  });
}

void acc_crowd(struct tally *t) {
  TIMED(t, CROWD_CALLS, {
    uint64_t x = 1;
    for (int i = 0; i < CROWD_CALLS; i++)
      x = small_crowd(x);
    __asm__ volatile("" ::"r"(x));
  });
}

typedef void (*kind_fn)(struct tally *);
struct job {
  kind_fn fn;
  struct tally t;
  pthread_t th;
};

static void *run_job(void *p) {
  struct job *j = p;
  j->fn(&j->t);
  return NULL;
}

/* Runs the kinds' threads together (or one after another) and sums them. */
static void run(const char *name, kind_fn fn, int threads, int together) {
  struct job *j = calloc((size_t)threads, sizeof *j);
  if (!j)
    exit(1);
  for (int i = 0; i < threads; i++) {
    j[i].fn = fn;
    if (pthread_create(&j[i].th, NULL, run_job, &j[i]) != 0)
      exit(1);
    if (!together)
      pthread_join(j[i].th, NULL);
  }
  struct tally s = {0, 0, 0, 0};
  for (int i = 0; i < threads; i++) {
    if (together)
      pthread_join(j[i].th, NULL);
    s.calls += j[i].t.calls;
    s.cpu += j[i].t.cpu;
    s.wall += j[i].t.wall;
  }
  s.loop = loop_cost(s.calls);
  printf("%s %d %llu %llu %llu %llu\n", name, threads, (unsigned long long)s.calls,
         (unsigned long long)s.cpu, (unsigned long long)s.wall, (unsigned long long)s.loop);
  free(j);
}

static void *run_holder(void *p) {
  struct job *j = p;
  acc_lock_holder(&j->t);
  return NULL;
}

static void run_lock(void) {
  struct job holder = {acc_lock_holder, {0, 0, 0, 0}, 0};
  if (pthread_create(&holder.th, NULL, run_holder, &holder) != 0)
    exit(1);
  run("lock_waiter", acc_lock_waiter, 1, 1);
  pthread_join(holder.th, NULL);
}

int main(int argc, char **argv) {
  if (argc != 2 || (strcmp(argv[1], "twin") && strcmp(argv[1], "real"))) {
    fprintf(stderr, "usage: accuracy twin|real\n");
    return 2;
  }
  twin = !strcmp(argv[1], "twin");
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  run("compute50", acc_compute50, 1, 0);
  run("compute200", acc_compute200, 1, 0);
  run("compute1000", acc_compute1000, 1, 0);
  run("syscall100", acc_syscall100, 1, 0);
  run("syscall1000", acc_syscall1000, 1, 0);
  run("syscall10000", acc_syscall10000, 1, 0);
  run("sleep", acc_sleep, 1, 0);
  size_t len = (size_t)FAULT_PAGES * (size_t)sysconf(_SC_PAGESIZE);
  fault_region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (fault_region == MAP_FAILED)
    return 1;
  madvise(fault_region, len, MADV_NOHUGEPAGE); /* one fault per page */
  if (twin)
    memset(fault_region, 1, len);
  run("fault", acc_fault, 1, 0);
  munmap(fault_region, len);
  run_lock();
  run("crowd", acc_crowd, (int)(2 * ncpu + 1), !twin);
  return 0;
}
