/* ground_truth.c - threads whose waiting is known, for the wait breakdown
 * tests (tests/integration/wait_breakdown.sh).  Each mode runs one function
 * and prints "truth FUNCTION VALUE" with the value measured independently of
 * inclprof:
 *   blocked MS  cond_waiter() waits on a condition variable that another
 *               thread signals after MS ms: the wall time of the call, ns;
 *   sleep MS    sleeper() sleeps MS ms in nanosleep: the wall time, ns;
 *   preempt MS  spinner() spins MS ms of wall time while 3 busy threads per
 *               CPU compete: its run_delay (schedstat field 2) over the call, ns;
 *   dense MS    dense_spinner() calls a function of a few ns in a loop for MS
 *               ms of wall time while 3 busy threads per CPU compete: its CPU
 *               time (CLOCK_THREAD_CPUTIME_ID) over the call, ns, and its
 *               run_delay as "delay dense_spinner NS";
 *   faults N    toucher() writes one byte to each of N fresh pages: N;
 *   burst MB    burster() clears MB fresh megabytes with one memset (a burst of
 *               page faults inside one library call, far more than the
 *               kevents ring holds), then napper() sleeps 40 ms: its wall
 *               time, ns;
 *   reader N    reader() reads N bytes from a pipe, one read() each, that
 *               another thread fills a byte every 100 us: the wall time
 *               reader() spent inside read(), ns. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int flag;
static long wait_ms;

static void *signaller(void *arg) {
  (void)arg;
  struct timespec d = {wait_ms / 1000, (wait_ms % 1000) * 1000000};
  nanosleep(&d, NULL);
  pthread_mutex_lock(&mu);
  flag = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  return NULL;
}

__attribute__((noinline)) void cond_waiter(void) {
  pthread_mutex_lock(&mu);
  while (!flag)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
}

__attribute__((noinline)) void sleeper(long ms) {
  struct timespec d = {ms / 1000, (ms % 1000) * 1000000};
  while (nanosleep(&d, &d) != 0)
    ;
}

static volatile unsigned long sink;
static volatile int stop;

/* About 100 us of work: the probes around it keep the intervals short, yet
 * their events fill the buffer slowly enough that no flush (whose time,
 * preemption included, is not the program's) falls within the spin. */
__attribute__((noinline)) void step(void) {
  for (int i = 0; i < 30000; i++)
    sink = sink * 31 + (unsigned long)i;
}

__attribute__((noinline)) void spinner(uint64_t until) {
  while (now_ns() < until)
    step();
}

/* A few ns of work: with probes this dense, a preemption often lands
 * between a probe's two reads (the ring's head, then the clock). */
__attribute__((noinline)) void tiny(void) { sink = sink * 31 + 7; }

__attribute__((noinline)) void dense_spinner(uint64_t until) {
  while (now_ns() < until)
    for (int i = 0; i < 1000; i++)
      tiny();
}

static uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *busy(void *arg) {
  (void)arg;
  while (!stop)
    sink++;
  return NULL;
}

/* The thread's schedstat, opened once: each reading is then one pread, so
 * nothing but a reading's own tail and head lies between the two readings
 * and the call they bracket.  A system call's return is where a preempted
 * thread is switched out, so the tail of the first reading can hold a whole
 * preemption that the reading's own row shows (run_delay is kept out of line
 * for that). */
static int schedstat_fd = -1;

__attribute__((noinline)) static uint64_t run_delay(void) {
  char buf[128];
  unsigned long long run = 0, delay = 0;
  ssize_t n = pread(schedstat_fd, buf, sizeof buf - 1, 0);
  if (n <= 0 || (buf[n] = 0, sscanf(buf, "%llu %llu", &run, &delay) != 2)) {
    fprintf(stderr,
            "ground_truth: cannot read the thread's schedstat (kernel without schedstats?)\n");
    exit(1);
  }
  return delay;
}

__attribute__((noinline)) void toucher(volatile char *p, long pages, long page) {
  for (long i = 0; i < pages; i++)
    p[i * page] = 1;
}

__attribute__((noinline)) void napper(void) {
  struct timespec d = {0, 40000000};
  while (nanosleep(&d, &d) != 0)
    ;
}

__attribute__((noinline)) void burster(char *p, size_t len) { memset(p, 1, len); }

static int pipe_fd[2];
static long pipe_bytes;

static void *feeder(void *arg) {
  (void)arg;
  struct timespec d = {0, 100000};
  for (long i = 0; i < pipe_bytes; i++) {
    nanosleep(&d, NULL);
    if (write(pipe_fd[1], "x", 1) != 1)
      break;
  }
  return NULL;
}

/* The time spent in read(), measured around each call. */
__attribute__((noinline)) uint64_t reader(long n) {
  uint64_t in_read = 0;
  char c;
  for (long i = 0; i < n; i++) {
    uint64_t t0 = now_ns();
    if (read(pipe_fd[0], &c, 1) != 1)
      break;
    in_read += now_ns() - t0;
  }
  return in_read;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(
        stderr,
        "usage: ground_truth blocked|sleep|preempt|dense MS | faults N | burst MB | reader N\n");
    return 2;
  }
  long n = atol(argv[2]);
  if (!strcmp(argv[1], "blocked")) {
    wait_ms = n;
    pthread_t th;
    pthread_create(&th, NULL, signaller, NULL);
    uint64_t t0 = now_ns();
    cond_waiter();
    uint64_t t1 = now_ns();
    pthread_join(th, NULL);
    printf("truth cond_waiter %llu\n", (unsigned long long)(t1 - t0));
  } else if (!strcmp(argv[1], "sleep")) {
    uint64_t t0 = now_ns();
    sleeper(n);
    printf("truth sleeper %llu\n", (unsigned long long)(now_ns() - t0));
  } else if (!strcmp(argv[1], "preempt")) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), k = 3 * (cpus > 0 ? cpus : 1);
    pthread_t *th = calloc((size_t)k, sizeof *th);
    for (long i = 0; i < k; i++)
      pthread_create(&th[i], NULL, busy, NULL);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", gettid());
    schedstat_fd = open(path, O_RDONLY);
    uint64_t until = now_ns() + (uint64_t)n * 1000000u;
    uint64_t d0 = run_delay();
    spinner(until);
    uint64_t d1 = run_delay();
    stop = 1;
    for (long i = 0; i < k; i++)
      pthread_join(th[i], NULL);
    printf("truth spinner %llu\n", (unsigned long long)(d1 - d0));
  } else if (!strcmp(argv[1], "dense")) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), k = 3 * (cpus > 0 ? cpus : 1);
    pthread_t *th = calloc((size_t)k, sizeof *th);
    for (long i = 0; i < k; i++)
      pthread_create(&th[i], NULL, busy, NULL);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", gettid());
    schedstat_fd = open(path, O_RDONLY);
    uint64_t until = now_ns() + (uint64_t)n * 1000000u, c0 = cpu_ns();
    uint64_t d0 = run_delay();
    dense_spinner(until);
    uint64_t d1 = run_delay(), c1 = cpu_ns();
    stop = 1;
    for (long i = 0; i < k; i++)
      pthread_join(th[i], NULL);
    printf("truth dense_spinner %llu\n", (unsigned long long)(c1 - c0));
    printf("delay dense_spinner %llu\n", (unsigned long long)(d1 - d0));
  } else if (!strcmp(argv[1], "faults")) {
    long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, (size_t)(n + 1) * (size_t)page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return 1;
    madvise(p, (size_t)(n + 1) * (size_t)page, MADV_NOHUGEPAGE);
    toucher(p, 1, page); /* the function's own code and stack are now mapped */
    toucher(p + page, n, page);
    printf("truth toucher %ld\n", n + 1);
  } else if (!strcmp(argv[1], "burst")) {
    size_t len = (size_t)n << 20;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return 1;
    madvise(p, len, MADV_NOHUGEPAGE);
    burster(p, len);
    uint64_t t0 = now_ns();
    napper();
    printf("truth napper %llu\n", (unsigned long long)(now_ns() - t0));
  } else if (!strcmp(argv[1], "reader")) {
    pipe_bytes = n;
    pthread_t th;
    if (pipe(pipe_fd) != 0)
      return 1;
    pthread_create(&th, NULL, feeder, NULL);
    uint64_t in_read = reader(n);
    pthread_join(th, NULL);
    printf("truth read %llu\n", (unsigned long long)in_read);
  } else {
    fprintf(stderr, "ground_truth: unknown mode %s\n", argv[1]);
    return 2;
  }
  return 0;
}
