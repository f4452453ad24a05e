/* deep_handler.c - a thread is sent SIGUSR1 while it runs and as it ends
 * (its events encoded then, its state let go), ROUNDS times; the handler
 * uses a 256 KB array of its own (argv[1] KB), which the thread's 8 MB
 * stack holds.  Prints "handled" once every round's thread is joined. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int done;
static volatile long sink;
static size_t kb = 256;

__attribute__((noinline)) static void leaf(int i) { sink += i; }

static void handler(int sig) {
  (void)sig;
  char *big = __builtin_alloca(kb * 1024);
  memset(big, 0x5a, kb * 1024);
  sink += ((volatile char *)big)[kb * 512];
}

static void *worker(void *p) {
  (void)p;
  for (int i = 0; i < 200000; i++)
    leaf(i);
  atomic_store(&done, 1);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    kb = (size_t)atoi(argv[1]);
  int rounds = argc > 2 ? atoi(argv[2]) : 40;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigaction(SIGUSR1, &sa, NULL);
  for (int r = 0; r < rounds; r++) {
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 8u << 20);
    atomic_store(&done, 0);
    if (pthread_create(&t, &at, worker, NULL) != 0)
      return 1;
    while (pthread_kill(t, SIGUSR1) == 0 && !atomic_load(&done))
      usleep(20);
    for (int k = 0; k < 200 && pthread_kill(t, SIGUSR1) == 0; k++)
      usleep(5);
    pthread_join(t, NULL);
  }
  puts("handled");
  return 0;
}
