/* views/trace_status.c - one sentence on how a process's trace ended when it
 * did not end normally: recording stopped early (disk full, a size limit),
 * the process is still running and writing it, or it never finished (killed).
 * info and report print the same words. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/text_table.h"
#include "views/views.h"

/* The process that wrote the trace still runs here: same host, the pid is
 * alive and runs the same executable. */
static int still_running(const ip_process *p) {
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0 || !p->hostname || strcmp(host, p->hostname))
    return 0;
  if (kill((pid_t)p->pid, 0) != 0 && errno != EPERM)
    return 0;
  char link[64], exe[PATH_MAX];
  snprintf(link, sizeof link, "/proc/%u/exe", p->pid);
  ssize_t n = readlink(link, exe, sizeof exe - 1);
  if (n <= 0)
    return errno == EACCES; /* alive, but not ours to look at */
  exe[n] = 0;
  return p->executable && !strcmp(exe, p->executable);
}

const char *ip_trace_status(const ip_process *p, char *buf, size_t len) {
  if (p->write_error) {
    char size[32];
    ip_fmt_bytes(size, sizeof size, p->bytes_written);
    snprintf(buf, len,
             "recording stopped early: %s, after %llu events (%s); the events before are "
             "complete",
             p->write_error, (unsigned long long)p->trailer_events, size);
    return buf;
  }
  if (p->has_trailer)
    return NULL;
  if (still_running(p))
    snprintf(buf, len, "no trailer yet: pid %u is still running (the trace is being written)",
             p->pid);
  else
    snprintf(buf, len, "no trailer: pid %u did not shut down cleanly (killed?)", p->pid);
  return buf;
}
