/* cli/record_watch.c - `record` waits for its program on a pidfd with a
 * one-second timeout, so that it returns the moment the program ends yet can
 * look at the trace directory in between: a recording whose rate would make
 * a trace of several GB a minute is named after its first second, once, on
 * record's own stderr (the program's output is left alone). */
#include "cli/record_watch.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "size_syntax.h"
#include "util/util.h"

static uint64_t trace_bytes(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  uint64_t n = 0;
  const struct dirent *e;
  struct stat st;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len > 4 && !strcmp(e->d_name + len - 4, ".ipb") &&
        fstatat(dirfd(d), e->d_name, &st, 0) == 0)
      n += (uint64_t)st.st_size;
  }
  closedir(d);
  return n;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void warn_rate(const char *dir, double per_s) {
  char rate[32], minute[32];
  ip_fmt_bytes(rate, sizeof rate, (uint64_t)per_s);
  ip_fmt_bytes(minute, sizeof minute, (uint64_t)(per_s * 60));
  fprintf(stderr,
          "inclprof record: the trace grows by %s a second (%s a minute at this rate) in %s/; "
          "after this run, 'inclprof suggest %s' writes a filter that leaves out the functions "
          "that make it (INCLPROF_RATE_WARNING=0 silences this)\n",
          rate, minute, dir, dir);
}

int record_watch_wait(pid_t pid, int *status, const char *dir) {
  /* INCLPROF_RATE_WARNING: the bytes a minute to warn above (K, M, G, T), 0 never */
  const char *setting = getenv("INCLPROF_RATE_WARNING");
  uint64_t limit = RECORD_WATCH_WARN_PER_MINUTE;
  if (setting && *setting && ip_size_parse(setting, &limit) != 0)
    limit = RECORD_WATCH_WARN_PER_MINUTE;
  int fd = limit ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
  if (fd >= 0) {
    double start = now_s();
    uint64_t base = trace_bytes(dir);
    int said = 0;
    for (;;) {
      struct pollfd p = {.fd = fd, .events = POLLIN};
      int r = poll(&p, 1, 1000);
      if (r > 0 || (r < 0 && errno != EINTR))
        break; /* ended (or the pidfd failed): waitpid says which */
      double t = now_s() - start;
      if (said || r < 0 || t < 1)
        continue;
      uint64_t bytes = trace_bytes(dir); /* less than base when a ring trace wrapped */
      double per_s = bytes > base ? (double)(bytes - base) / t : 0;
      if (per_s * 60 > (double)limit) {
        warn_rate(dir, per_s);
        said = 1;
      }
    }
    close(fd);
  }
  while (waitpid(pid, status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return 0;
}
