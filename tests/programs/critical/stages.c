/* stages.c - threads that hand work to each other, whose critical path is
 * known, for the critical-path tests (tests/integration/critical_path.sh).
 * Each stage function does N rounds of arithmetic (no call inside the loop)
 * and measures its own wall time; the program prints "truth NAME NS" for
 * each, and "truth wall NS" for main from its start to its end:
 *   pipeline N  main starts stage_a's thread, stage_b's thread and a decoy,
 *               joins the decoy, then stage_b's thread.  stage_b's thread
 *               waits on a condition until stage_a has done N rounds and
 *               signalled it, then does N rounds itself; the decoy does N/4
 *               rounds that nobody waits for.  Truth cv_held is the time
 *               from stage_a's thread's creation (or thread_b's wait, if
 *               later) to its signal, join_b_held from the signal (or main's
 *               join of thread_b, if later) to thread_b's end: the times the
 *               critical path spends on the signalling and on the joined
 *               thread while the condition's and the join's waiters sleep.
 *               Built with -DSTAGE_A_SHARE=2,
 *               stage_a does N/2 rounds (the "twice as fast" program);
 *   lockchain N three threads: link_1 holds lock 1 and, once link_2
 *               holds lock 2 and is about to take lock 1, does N rounds;
 *               link_2 waits for lock 1, then does N rounds; link_3 waits
 *               for lock 2, then does N rounds; main joins link_3's thread.
 *               Truth link_work is the three links' time, or only link_2's
 *               and link_3's when link_2 found lock 1 free (it was held up
 *               until link_1 had finished: nobody waited for link_1);
 *               truth link_N its link's own time, truth lock1_wait and
 *               lock2_wait the time link_2 waited for lock 1 (0 when it
 *               found it free) and link_3 for lock 2, lock1_held from
 *               link_2's wait to link_1's unlock of lock 1, lock2_held from
 *               link_3's wait (or that unlock, if later) to link_2's unlock
 *               of lock 2; "object NAME ADDRESS" gives the addresses of the
 *               locks and conditions;
 *   queue N     produce_item makes 40 items of N/40 rounds each into a
 *               queue of 4 (mutex and two conditions), consume_item takes
 *               each and does N/10 rounds on it: the consumer is the
 *               bottleneck; truth produce_first is the first item's time,
 *               consumer_waits how often the consumer found the queue
 *               empty after the first item (0 unless the producer lost
 *               its CPU for long: then more production is waited for);
 *   broadcast N main does N rounds in prepare, then broadcasts to three
 *               waiters, each doing N/2 rounds in waiter_work; main joins
 *               them; truth waiter_work is the waiter that ended last,
 *               waiter_work_K each waiter's (the one whose thread ended
 *               last is on the path: a waiter preempted between its
 *               waiter_work and its exit can end after one whose
 *               waiter_work ended later);
 *   sleep N     chain_work does N rounds, sleeps 60 ms (nanosleep), then
 *               N rounds again on a thread main joins: truth nanosleep. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef STAGE_A_SHARE
#define STAGE_A_SHARE 1
#endif

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long rounds;
static volatile uint64_t sink;

/* n rounds of a linear congruential step: work with no call inside. */
#define SPIN(n)                                                                                    \
  do {                                                                                             \
    uint64_t x_ = sink + 1;                                                                        \
    for (long i_ = 0; i_ < (n); i_++)                                                              \
      x_ = x_ * 6364136223846793005ull + 1442695040888963407ull;                                   \
    sink = x_;                                                                                     \
  } while (0)

static void truth(const char *name, uint64_t ns) {
  printf("truth %s %llu\n", name, (unsigned long long)ns);
}

static void object(const char *name, const void *at) { printf("object %s %p\n", name, at); }

static void start(pthread_t *t, void *(*fn)(void *), void *arg) {
  if (pthread_create(t, NULL, fn, arg) != 0) {
    perror("pthread_create");
    exit(1);
  }
}

/* ---- pipeline ---------------------------------------------------------- */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static uint64_t ns_a, ns_b, ns_decoy;
static uint64_t at_b_wait, at_signal, at_create_a, at_join_b, at_b_end;

static uint64_t later(uint64_t a, uint64_t b) { return a > b ? a : b; }

__attribute__((noinline)) static void stage_a(void) {
  uint64_t t0 = now_ns();
  SPIN(rounds / STAGE_A_SHARE);
  ns_a = now_ns() - t0;
}

__attribute__((noinline)) static void stage_b(void) {
  uint64_t t0 = now_ns();
  SPIN(rounds);
  ns_b = now_ns() - t0;
}

__attribute__((noinline)) static void decoy(void) {
  uint64_t t0 = now_ns();
  SPIN(rounds / 4);
  ns_decoy = now_ns() - t0;
}

static void *thread_a(void *arg) {
  (void)arg;
  stage_a();
  pthread_mutex_lock(&mu);
  ready = 1;
  at_signal = now_ns();
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  return NULL;
}

static void *thread_b(void *arg) {
  (void)arg;
  at_b_wait = now_ns();
  pthread_mutex_lock(&mu);
  while (!ready)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  stage_b();
  at_b_end = now_ns();
  return NULL;
}

static void *thread_decoy(void *arg) {
  (void)arg;
  decoy();
  return NULL;
}

static void pipeline(void) {
  pthread_t a, b, d;
  start(&b, thread_b, NULL);
  start(&d, thread_decoy, NULL);
  at_create_a = now_ns();
  start(&a, thread_a, NULL);
  pthread_join(d, NULL);
  at_join_b = now_ns();
  pthread_join(b, NULL);
  pthread_join(a, NULL);
  truth("stage_a", ns_a);
  truth("stage_b", ns_b);
  truth("decoy", ns_decoy);
  truth("cv_held", at_signal - later(at_create_a, at_b_wait));
  truth("join_b_held", at_b_end - later(at_signal, at_join_b));
  object("mu", &mu);
  object("cv", &cv);
}

/* ---- lock chain -------------------------------------------------------- */
static pthread_mutex_t lock1 = PTHREAD_MUTEX_INITIALIZER, lock2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t step_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t step_cv = PTHREAD_COND_INITIALIZER;
static int step; /* 1: link_1 holds lock 1; 2: link_2 holds lock 2 */
static uint64_t ns_link[4], ns_lock1_wait, ns_lock2_wait;
static uint64_t at_wait1, at_unlock1, at_wait2, at_unlock2;
static int link_1_waited_for; /* link_2 found lock 1 held */

static void reached(int s) {
  pthread_mutex_lock(&step_mu);
  step = s;
  pthread_cond_broadcast(&step_cv);
  pthread_mutex_unlock(&step_mu);
}

static void await_step(int s) {
  pthread_mutex_lock(&step_mu);
  while (step < s)
    pthread_cond_wait(&step_cv, &step_mu);
  pthread_mutex_unlock(&step_mu);
}

__attribute__((noinline)) static void link_work(int k) {
  uint64_t t0 = now_ns();
  SPIN(rounds);
  ns_link[k] = now_ns() - t0;
}

static void *link_1(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock1);
  reached(1);
  await_step(2);
  link_work(1);
  at_unlock1 = now_ns();
  pthread_mutex_unlock(&lock1);
  return NULL;
}

static void *link_2(void *arg) {
  (void)arg;
  await_step(1);
  pthread_mutex_lock(&lock2);
  reached(2);
  if (pthread_mutex_trylock(&lock1) != 0) {
    link_1_waited_for = 1;
    at_wait1 = now_ns();
    pthread_mutex_lock(&lock1);
    ns_lock1_wait = now_ns() - at_wait1;
  }
  link_work(2);
  pthread_mutex_unlock(&lock1);
  at_unlock2 = now_ns();
  pthread_mutex_unlock(&lock2);
  return NULL;
}

static void *link_3(void *arg) {
  (void)arg;
  await_step(2);
  at_wait2 = now_ns();
  pthread_mutex_lock(&lock2);
  ns_lock2_wait = now_ns() - at_wait2;
  link_work(3);
  pthread_mutex_unlock(&lock2);
  return NULL;
}

static void lockchain(void) {
  pthread_t t1, t2, t3;
  start(&t1, link_1, NULL);
  start(&t2, link_2, NULL);
  start(&t3, link_3, NULL);
  pthread_join(t3, NULL);
  pthread_join(t2, NULL);
  pthread_join(t1, NULL);
  truth("link_work", (link_1_waited_for ? ns_link[1] : 0) + ns_link[2] + ns_link[3]);
  truth("link_1", ns_link[1]);
  truth("link_2", ns_link[2]);
  truth("lock1_wait", ns_lock1_wait);
  truth("lock2_wait", ns_lock2_wait);
  truth("lock1_held", link_1_waited_for ? at_unlock1 - at_wait1 : 0);
  truth("lock2_held", at_unlock2 - later(at_wait2, link_1_waited_for ? at_unlock1 : 0));
  object("lock1", &lock1);
  object("lock2", &lock2);
  object("step_mu", &step_mu);
  object("step_cv", &step_cv);
}

/* ---- producer / consumer ----------------------------------------------- */
enum { ITEMS = 40, QUEUE = 4 };
static long queue[QUEUE];
static int q_head, q_len;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static uint64_t ns_produce_first, ns_produce, ns_consume, consumer_waits;

__attribute__((noinline)) static long produce_item(long k) {
  SPIN(rounds / ITEMS);
  return k;
}

__attribute__((noinline)) static void consume_item(long k) {
  (void)k;
  SPIN(rounds / 10);
}

static void *producer(void *arg) {
  (void)arg;
  for (long k = 0; k < ITEMS; k++) {
    uint64_t t0 = now_ns();
    long item = produce_item(k);
    uint64_t d = now_ns() - t0;
    ns_produce += d;
    if (!k)
      ns_produce_first = d;
    pthread_mutex_lock(&mu);
    while (q_len == QUEUE)
      pthread_cond_wait(&not_full, &mu);
    queue[(q_head + q_len++) % QUEUE] = item;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  for (long k = 0; k < ITEMS; k++) {
    pthread_mutex_lock(&mu);
    consumer_waits += k && !q_len;
    while (!q_len)
      pthread_cond_wait(&not_empty, &mu);
    long item = queue[q_head];
    q_head = (q_head + 1) % QUEUE;
    q_len--;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&mu);
    uint64_t t0 = now_ns();
    consume_item(item);
    ns_consume += now_ns() - t0;
  }
  return NULL;
}

static void producer_consumer(void) {
  pthread_t p, c;
  start(&c, consumer, NULL);
  start(&p, producer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
  truth("produce_item", ns_produce);
  truth("produce_first", ns_produce_first);
  truth("consume_item", ns_consume);
  truth("consumer_waits", consumer_waits);
}

/* ---- broadcast --------------------------------------------------------- */
enum { WAITERS = 3 };
static int go;
static uint64_t waiter_ns[WAITERS], waiter_end[WAITERS], ns_prepare;

__attribute__((noinline)) static void prepare(void) {
  uint64_t t0 = now_ns();
  SPIN(rounds);
  ns_prepare = now_ns() - t0;
}

__attribute__((noinline)) static void waiter_work(long k) {
  uint64_t t0 = now_ns();
  SPIN(rounds / 2);
  waiter_end[k] = now_ns();
  waiter_ns[k] = waiter_end[k] - t0;
}

static void *waiter(void *arg) {
  long k = (long)(intptr_t)arg;
  pthread_mutex_lock(&mu);
  while (!go)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  waiter_work(k);
  return NULL;
}

static void broadcast(void) {
  pthread_t w[WAITERS];
  for (long k = 0; k < WAITERS; k++)
    start(&w[k], waiter, (void *)(intptr_t)k);
  prepare();
  pthread_mutex_lock(&mu);
  go = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  for (int k = 0; k < WAITERS; k++)
    pthread_join(w[k], NULL);
  int last = 0;
  for (int k = 1; k < WAITERS; k++)
    if (waiter_end[k] > waiter_end[last])
      last = k;
  truth("prepare", ns_prepare);
  truth("waiter_work", waiter_ns[last]);
  for (int k = 0; k < WAITERS; k++) {
    char name[32];
    snprintf(name, sizeof name, "waiter_work_%d", k);
    truth(name, waiter_ns[k]);
  }
}

/* ---- a chain that ends in a sleep --------------------------------------- */
static uint64_t ns_sleep;

__attribute__((noinline)) static void chain_work(void) {
  SPIN(rounds);
  struct timespec d = {0, 60000000};
  uint64_t t0 = now_ns();
  nanosleep(&d, NULL);
  ns_sleep = now_ns() - t0;
  SPIN(rounds);
}

static void *chain(void *arg) {
  (void)arg;
  chain_work();
  return NULL;
}

static void sleep_chain(void) {
  pthread_t t;
  start(&t, chain, NULL);
  pthread_join(t, NULL);
  truth("nanosleep", ns_sleep);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s pipeline|lockchain|queue|broadcast|sleep ROUNDS\n", argv[0]);
    return 2;
  }
  rounds = atol(argv[2]);
  uint64_t t0 = now_ns();
  if (!strcmp(argv[1], "pipeline"))
    pipeline();
  else if (!strcmp(argv[1], "lockchain"))
    lockchain();
  else if (!strcmp(argv[1], "queue"))
    producer_consumer();
  else if (!strcmp(argv[1], "broadcast"))
    broadcast();
  else if (!strcmp(argv[1], "sleep"))
    sleep_chain();
  else {
    fprintf(stderr, "%s: unknown mode %s\n", argv[0], argv[1]);
    return 2;
  }
  truth("wall", now_ns() - t0);
  return 0;
}
