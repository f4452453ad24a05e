/* threads.c - who gets samples: main computes first, then starts two
 * threads late: busy_worker() computes, sleepy_worker() only waits (nanosleep
 * and poll).  Usage: threads UNITS (units of about 1 ms of computation each
 * for main and the busy thread).  Prints each thread's tid ("main TID",
 * "busy TID", "sleepy TID"), how many of sleepy's waits were interrupted
 * ("sleepy_eintr N") and the CPU time of the busy thread's computation and of
 * sleepy's waiting loop ("busy_cpu_us N", "sleepy_cpu_us N"). */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

static long units;
static volatile unsigned long sink;
static int busy_tid, sleepy_tid, sleepy_eintr;
static long busy_cpu_us, sleepy_cpu_us;

static long thread_cpu_us(void) {
  struct timespec cpu;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  return (long)cpu.tv_sec * 1000000 + cpu.tv_nsec / 1000;
}

__attribute__((noinline)) void main_work(void) { sink = spin(sink, units * 700000L); }

__attribute__((noinline)) void *busy_worker(void *arg) {
  busy_tid = gettid();
  long start = thread_cpu_us();
  sink = spin((unsigned long)arg, units * 700000L);
  busy_cpu_us = thread_cpu_us() - start;
  return NULL;
}

__attribute__((noinline)) void *sleepy_worker(void *arg) {
  (void)arg;
  sleepy_tid = gettid();
  long start = thread_cpu_us();
  for (int i = 0; i < 2; i++) {
    struct timespec ts = {0, 100000000};
    if (nanosleep(&ts, NULL) != 0)
      sleepy_eintr++;
    if (poll(NULL, 0, 100) != 0)
      sleepy_eintr++;
  }
  sleepy_cpu_us = thread_cpu_us() - start;
  return NULL;
}

int main(int argc, char **argv) {
  units = argc > 1 ? atol(argv[1]) : 100;
  main_work();
  pthread_t busy, sleepy;
  if (pthread_create(&sleepy, NULL, sleepy_worker, NULL) != 0 ||
      pthread_create(&busy, NULL, busy_worker, (void *)1ul) != 0)
    return 1;
  pthread_join(busy, NULL);
  pthread_join(sleepy, NULL);
  printf("main %d\nbusy %d\nsleepy %d\nsleepy_eintr %d\nbusy_cpu_us %ld\nsleepy_cpu_us %ld\n",
         gettid(), busy_tid, sleepy_tid, sleepy_eintr, busy_cpu_us, sleepy_cpu_us);
  return 0;
}
