/* fd_limit.c - a program close to its descriptor limit: a first wave of
 * W1 threads, then it opens F files, then W2 threads that are all alive at
 * once, each making a pipe, then G more files.  Prints what it did; exits 1
 * at the first descriptor it could not get.
 * Usage: fd_limit W1 F W2 G */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_barrier_t all_alive;
static volatile unsigned long sink;
static int use_barrier;

__attribute__((noinline)) static void work(int n) {
  for (int i = 0; i < n; i++)
    sink += (unsigned long)i;
}

static void *worker(void *arg) {
  (void)arg;
  work(100);
  if (use_barrier)
    pthread_barrier_wait(&all_alive);
  int p[2];
  if (pipe(p) != 0) {
    fprintf(stderr, "fd_limit: pipe: %s\n", strerror(errno));
    exit(1);
  }
  close(p[0]);
  close(p[1]);
  return NULL;
}

static void wave(int n, int together) {
  pthread_t *t = calloc((size_t)n, sizeof *t);
  use_barrier = together;
  if (together)
    pthread_barrier_init(&all_alive, NULL, (unsigned)n);
  for (int i = 0; i < n; i++)
    if (pthread_create(&t[i], NULL, worker, NULL) != 0) {
      fprintf(stderr, "fd_limit: pthread_create failed\n");
      exit(1);
    }
  for (int i = 0; i < n; i++)
    pthread_join(t[i], NULL);
  if (together)
    pthread_barrier_destroy(&all_alive);
  free(t);
}

static void open_files(int n) {
  for (int i = 0; i < n; i++)
    if (open("/dev/null", O_RDONLY) < 0) {
      fprintf(stderr, "fd_limit: open number %d: %s\n", i + 1, strerror(errno));
      exit(1);
    }
}

int main(int argc, char **argv) {
  if (argc != 5)
    return 2;
  work(10);
  wave(atoi(argv[1]), 0);
  open_files(atoi(argv[2]));
  wave(atoi(argv[3]), 1);
  open_files(atoi(argv[4]));
  printf("waves of %s and %s threads, %s + %s files opened\n", argv[1], argv[3], argv[2], argv[4]);
  return 0;
}
