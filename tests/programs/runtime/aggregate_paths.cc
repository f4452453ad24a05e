// aggregate_paths.cc - a deterministic program for the aggregate mode's
// side-by-side test: two worker threads and the main thread each run
// `rounds` rounds of a recursive fib (whose leaves call work) and of an
// exception thrown three frames below the function that catches it; the
// program prints how many calls of each function it made.
//   usage: aggregate_paths [ROUNDS]   (default 200)
#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static volatile unsigned long sink;
static unsigned long fib_calls[3], work_calls[3], thrower_calls[3];

__attribute__((noinline)) unsigned long work(int who, int n) {
  work_calls[who]++;
  unsigned long s = 0;
  for (int i = 0; i < n; i++)
    s += (unsigned long)i * (unsigned long)i;
  sink += s;
  return s;
}

__attribute__((noinline)) unsigned long fib(int who, int n) {
  fib_calls[who]++;
  return n < 2 ? work(who, 60) : fib(who, n - 1) + fib(who, n - 2);
}

__attribute__((noinline)) void thrower(int who, int depth) {
  thrower_calls[who]++;
  work(who, 200);
  if (depth == 0)
    throw std::runtime_error("bottom");
  thrower(who, depth - 1);
}

__attribute__((noinline)) int catcher(int who) {
  try {
    thrower(who, 3);
  } catch (const std::exception &) {
    return 1;
  }
  return 0;
}

static int rounds = 200;

__attribute__((noinline)) void *worker(void *arg) {
  int who = (int)(long)arg;
  unsigned long s = 0;
  for (int i = 0; i < rounds; i++) {
    s += fib(who, 11 + who);
    s += (unsigned long)catcher(who);
  }
  sink += s;
  return nullptr;
}

int main(int argc, char **argv) {
  if (argc > 1)
    rounds = atoi(argv[1]);
  pthread_t t[2];
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], nullptr, worker, (void *)i);
  worker((void *)2);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], nullptr);
  unsigned long f = 0, w = 0, th = 0;
  for (int i = 0; i < 3; i++) {
    f += fib_calls[i];
    w += work_calls[i];
    th += thrower_calls[i];
  }
  printf("fib=%lu work=%lu thrower=%lu catcher=%d worker=3\n", f, w, th, 3 * rounds);
  return 0;
}
