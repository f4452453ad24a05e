/* storm.c - the thread storm of `make stress`: WAVES waves of PER_WAVE
 * threads, each started and joined together; every thread makes a fixed mix
 * of instrumented calls, every 25th thread forks a child that runs
 * instrumented code and then execs /bin/true or this program as a helper,
 * and the main process execs a helper at the end.  Each instrumented
 * function counts its own calls with an atomic counter; each process appends
 * its counts ("function count" lines) to COUNTS before it exits or execs, so
 * that the calls made can be compared with the calls in the traces.
 *   usage: storm WAVES PER_WAVE COUNTS      storm helper COUNTS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NO_PROBES __attribute__((no_instrument_function))

enum { F_MAIN, F_LEAF, F_MID, F_RECURSE, F_THREAD, F_CHILD, F_HELPER, N_FUNCS };
static const char *const names[N_FUNCS] = {"main",        "storm_leaf",  "storm_mid",
                                           "storm_recurse", "storm_thread", "storm_child",
                                           "storm_helper"};
static unsigned long calls[N_FUNCS];
static const char *counts_path, *self_path;

#define COUNT(f) __atomic_fetch_add(&calls[f], 1, __ATOMIC_RELAXED)

/* Appends this process's counts to COUNTS in one write (O_APPEND). */
NO_PROBES static void report_counts(void) {
  char buf[512];
  int n = 0;
  for (int f = 0; f < N_FUNCS; f++)
    n += snprintf(buf + n, sizeof buf - (size_t)n, "%s %lu\n", names[f],
                  __atomic_load_n(&calls[f], __ATOMIC_RELAXED));
  int fd = open(counts_path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0 || write(fd, buf, (size_t)n) != n) {
    perror(counts_path);
    _exit(1);
  }
  close(fd);
}

/* A fork child starts counting from zero: its parent's calls are in the
 * parent's trace. */
NO_PROBES static void reset_counts(void) {
  for (int f = 0; f < N_FUNCS; f++)
    __atomic_store_n(&calls[f], 0, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static unsigned storm_leaf(unsigned x) {
  COUNT(F_LEAF);
  __asm__ volatile("" : "+r"(x));
  return x * 2654435761u + 1;
}

__attribute__((noinline)) static unsigned storm_mid(unsigned x) {
  COUNT(F_MID);
  return storm_leaf(x) ^ storm_leaf(x + 1);
}

/* The asm keeps the recursion a real call: GCC turns self tail recursion
 * (also "return f() + 1") into a loop before the probes are placed, and the
 * loop's rounds are not calls. */
__attribute__((noinline)) static unsigned storm_recurse(unsigned depth, unsigned x) {
  COUNT(F_RECURSE);
  if (!depth)
    return x;
  unsigned r = storm_recurse(depth - 1, storm_leaf(x));
  __asm__ volatile("" : "+r"(r));
  return r;
}

__attribute__((noinline)) static void storm_child(unsigned x, int exec_self) {
  COUNT(F_CHILD);
  for (int i = 0; i < 500; i++)
    x = storm_mid(x);
  report_counts();
  if (exec_self)
    execl(self_path, self_path, "helper", counts_path, (char *)NULL);
  else
    execl("/bin/true", "true", (char *)NULL);
  perror("storm: exec");
  _exit(1);
}

__attribute__((noinline)) static void *storm_thread(void *arg) {
  COUNT(F_THREAD);
  unsigned id = (unsigned)(unsigned long)arg, x = id;
  for (int i = 0; i < 2000; i++)
    x = storm_mid(x) + storm_recurse(i % 5, x);
  if (id % 25 == 0) {
    pid_t pid = fork();
    if (pid == 0) {
      reset_counts();
      storm_child(x, id % 50 == 0);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      fprintf(stderr, "storm: child of thread %u failed\n", id);
      exit(1);
    }
  }
  return (void *)(unsigned long)x;
}

__attribute__((noinline)) static void storm_helper(void) {
  COUNT(F_HELPER);
  unsigned x = 7;
  for (int i = 0; i < 1000; i++)
    x = storm_mid(x);
  if (x == 1)
    puts("");
}

int main(int argc, char **argv) {
  COUNT(F_MAIN);
  self_path = "/proc/self/exe";
  if (argc == 3 && strcmp(argv[1], "helper") == 0) {
    counts_path = argv[2];
    storm_helper();
    report_counts();
    return 0;
  }
  if (argc != 4) {
    fprintf(stderr, "usage: storm WAVES PER_WAVE COUNTS\n");
    return 2;
  }
  int waves = atoi(argv[1]), per_wave = atoi(argv[2]);
  counts_path = argv[3];
  pthread_t *t = calloc((size_t)per_wave, sizeof *t);
  if (!t)
    return 1;
  for (int w = 0; w < waves; w++) {
    for (int i = 0; i < per_wave; i++)
      if (pthread_create(&t[i], NULL, storm_thread, (void *)(unsigned long)(w * per_wave + i))) {
        fprintf(stderr, "storm: cannot start thread %d of wave %d\n", i, w);
        return 1;
      }
    for (int i = 0; i < per_wave; i++)
      pthread_join(t[i], NULL);
  }
  free(t);
  report_counts();
  fflush(NULL);
  /* the main process ends by exec: its trace gets an exec trailer */
  execl(self_path, self_path, "helper", counts_path, (char *)NULL);
  perror("storm: exec");
  return 1;
}
