/* callheavy.c - the call-heavy workloads every instrumentation method is
 * measured on.  mixed (the default): a recursive function (fib-like, written
 * so that no compiler turns a recursive call into a loop) plus a loop calling
 * two small non-inlined functions and two inlinable ones; rec: the recursion
 * alone (DEPTH; LOOPS ignored); tree: LOOPS walks of a complete binary tree of
 * DEPTH levels, each node a call of the walk and of a visit; threads: mixed in
 * 4 threads at once.  Instrumentation that works after inlining (the inclprof
 * plugin, -pg, XRay) sees only the non-inlined calls; -finstrument-functions
 * also hooks the inlined ones.
 *   usage: callheavy DEPTH LOOPS [mixed|rec|tree|threads]
 * Prints the time of the workload alone (CLOCK_MONOTONIC), the CPU time the
 * whole process spent in it (cpu_ns, CLOCK_PROCESS_CPUTIME_ID: every thread,
 * a tracer's own threads included), the number of non-inlined calls it made,
 * and the wall-clock time it ended (end_unix_ns), from which a caller
 * measures how long the process took to exit. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__attribute__((noinline)) unsigned long rec(unsigned n) {
  if (n < 2)
    return n;
  unsigned long a = rec(n - 1);
  unsigned long b = rec(n - 2);
  return (a ^ (b * 3)) + 1;
}

__attribute__((noinline)) unsigned step_mul(unsigned x) { return x * 2654435761u + 1; }

__attribute__((noinline)) unsigned step_rot(unsigned x, unsigned y) {
  return ((x ^ y) >> 1) | (x << 31);
}

static inline unsigned tiny_add(unsigned x) { return x + 7; }

static inline unsigned tiny_mix(unsigned x) { return x ^ (x >> 3); }

/* Calls of rec(depth): c(n) = 1 + c(n-1) + c(n-2), c(0) = c(1) = 1. */
static unsigned long rec_calls(unsigned depth) {
  unsigned long prev = 1, cur = 1;
  for (unsigned i = 2; i <= depth; i++) {
    unsigned long next = 1 + cur + prev;
    prev = cur;
    cur = next;
  }
  return cur;
}

struct node {
  struct node *kid[2];
  unsigned val;
};

static struct node *build(unsigned depth, unsigned *next) {
  if (!depth)
    return NULL;
  struct node *n = malloc(sizeof *n);
  if (!n)
    exit(1);
  n->val = (*next)++;
  n->kid[0] = build(depth - 1, next);
  n->kid[1] = build(depth - 1, next);
  return n;
}

__attribute__((noinline)) unsigned visit(const struct node *n, unsigned acc) {
  return (acc ^ n->val) * 31u + 7u;
}

__attribute__((noinline)) unsigned walk(const struct node *n, unsigned acc) {
  if (!n)
    return acc;
  acc = visit(n, acc);
  acc = walk(n->kid[0], acc);
  return walk(n->kid[1], acc);
}

struct job {
  unsigned depth, loops;
  unsigned long result;
};

static void *mixed(void *arg) {
  struct job *j = arg;
  unsigned long r = rec(j->depth);
  unsigned acc = 1;
  for (unsigned i = 0; i < j->loops; i++) {
    acc = step_mul(acc);
    acc = step_rot(acc, i);
    acc = tiny_add(acc);
    acc = tiny_mix(acc);
  }
  j->result = r ^ acc;
  return NULL;
}

static double clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

enum { THREADS = 4 };

int main(int argc, char **argv) {
  const char *mode = argc == 4 ? argv[3] : "mixed";
  if ((argc != 3 && argc != 4) || (strcmp(mode, "mixed") && strcmp(mode, "rec") &&
                                   strcmp(mode, "tree") && strcmp(mode, "threads"))) {
    fprintf(stderr, "usage: callheavy DEPTH LOOPS [mixed|rec|tree|threads]\n");
    return 2;
  }
  unsigned depth = (unsigned)strtoul(argv[1], NULL, 10);
  unsigned loops = (unsigned)strtoul(argv[2], NULL, 10);
  unsigned long calls = 0, inlinable = 0, result = 0;
  const struct node *root = NULL;
  if (!strcmp(mode, "tree")) {
    unsigned next = 0;
    root = build(depth, &next);
  }
  double t0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  if (!strcmp(mode, "mixed") || !strcmp(mode, "rec")) {
    struct job j = {depth, strcmp(mode, "rec") ? loops : 0, 0};
    mixed(&j);
    result = j.result;
    calls = rec_calls(depth) + 2ul * j.loops;
    inlinable = 2ul * j.loops;
  } else if (!strcmp(mode, "tree")) {
    unsigned acc = 1;
    for (unsigned i = 0; i < loops; i++)
      acc = walk(root, acc);
    result = acc;
    /* per walk: every node is one walk and one visit call, every missing
     * child (2^depth of them) one more walk call */
    calls = (unsigned long)loops * (3ul * ((1ul << depth) - 1) + 1);
  } else {
    pthread_t th[THREADS];
    struct job j[THREADS];
    for (int i = 0; i < THREADS; i++) {
      j[i] = (struct job){depth, loops, 0};
      pthread_create(&th[i], NULL, mixed, &j[i]);
    }
    for (int i = 0; i < THREADS; i++) {
      pthread_join(th[i], NULL);
      result ^= j[i].result;
    }
    calls = THREADS * (rec_calls(depth) + 2ul * loops);
    inlinable = THREADS * 2ul * loops;
  }
  double t1 = clock_ns(CLOCK_MONOTONIC), c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  struct timespec end;
  clock_gettime(CLOCK_REALTIME, &end);
  printf("work_ns=%.0f cpu_ns=%.0f calls=%lu inlinable_calls=%lu checksum=%lx end_unix_ns=%lld\n",
         t1 - t0, c1 - c0, calls, inlinable, result,
         (long long)end.tv_sec * 1000000000ll + end.tv_nsec);
  return 0;
}
