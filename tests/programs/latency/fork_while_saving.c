/* fork_while_saving.c - forks while snapshots are being written: a worker
 * thread makes slow calls of handle() (3 ms of work in 300 calls of step())
 * back to back, so that with a condition like handle>1ms the control thread
 * is writing a snapshot most of the time, while the main thread forks
 * children and waits for each.  A child looks through its open descriptors
 * for one on a snapshot or on a file of its parent's trace (its parent's
 * PID.ipb, a .prev or .held segment), says so on a pipe to its parent when
 * it found one, and _exits at once; an alarm ends a child still there after
 * 2 s.  Runs
 * SECONDS (default 2) and prints "forks N slow M leaked L hung H": the
 * children, the calls of handle(), the children that found such a
 * descriptor and those that did not exit. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static atomic_int stopping;
static volatile uint64_t sink;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

__attribute__((noinline)) static void step(uint64_t end) {
  uint64_t x = sink;
  while (now_ns() < end)
    for (int i = 0; i < 64; i++)
      x = x * 6364136223846793005u + 1442695040888963407u;
  sink = x;
}

__attribute__((noinline)) static void handle(void) {
  uint64_t t0 = now_ns();
  for (int i = 1; i <= 300; i++)
    step(t0 + (uint64_t)i * 10000u);
}

static int ends_with(const char *s, const char *end) {
  size_t n = strlen(s), m = strlen(end);
  return n >= m && !strcmp(s + n - m, end);
}

/* 1 when a descriptor is open on a snapshot or on a file of the parent's trace. */
static int parents_file_open(void) {
  char parents[32], link[300], to[4096];
  snprintf(parents, sizeof parents, "/%d.ipb", (int)getppid());
  DIR *d = opendir("/proc/self/fd");
  int found = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(link, to, sizeof to - 1);
    if (n <= 0)
      continue;
    to[n] = 0;
    found |= strstr(to, "/snapshots/") || ends_with(to, ".prev") || ends_with(to, ".held") ||
             ends_with(to, parents);
  }
  if (d)
    closedir(d);
  return found;
}

static void *worker(void *arg) {
  int *calls = arg;
  while (!atomic_load(&stopping)) {
    handle();
    ++*calls;
  }
  return NULL;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 2;
  int calls = 0, forks = 0, leaked = 0, hung = 0, said[2];
  if (pipe2(said, O_NONBLOCK))
    return 1;
  pthread_t t;
  if (pthread_create(&t, NULL, worker, &calls))
    return 1;
  uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
  while (now_ns() < end) {
    pid_t c = fork();
    if (c == 0) {
      alarm(2);
      if (parents_file_open() && write(said[1], "l", 1) != 1)
        _exit(1);
      _exit(0);
    }
    int status;
    if (c < 0 || waitpid(c, &status, 0) != c)
      return 1;
    forks++;
    char c1;
    leaked += read(said[0], &c1, 1) == 1;
    hung += !WIFEXITED(status);
  }
  atomic_store(&stopping, 1);
  pthread_join(t, NULL);
  printf("forks %d slow %d leaked %d hung %d\n", forks, calls, leaked, hung);
  return 0;
}
