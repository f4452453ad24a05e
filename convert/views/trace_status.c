/* views/trace_status.c - one sentence on how a process's trace ended when it
 * did not end normally: recording stopped early (disk full, a size limit),
 * the process is still running and writing it, or it never finished (killed);
 * and one on the size limit (INCLPROF_MAX_SIZE) and what it dropped.  info
 * and report print the same words. */
#include <stdio.h>
#include <string.h>

#include "util/util.h"
#include "views/views.h"

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
  if (p->cut)
    snprintf(buf, len,
             "no trailer: the file ends in a damaged record, so whether pid %u shut down cleanly "
             "is not known",
             p->pid);
  else if (ip_process_running(p))
    snprintf(buf, len,
             "no trailer yet: pid %u is still running (the trace is being written); read up to its "
             "last complete batch ('inclprof ctl %u flush' writes what its threads hold)",
             p->pid, p->pid);
  else
    snprintf(buf, len, "no trailer: pid %u did not shut down cleanly (killed?)", p->pid);
  return buf;
}

const char *ip_size_limit_status(const ip_process *p, char *buf, size_t len, int *reached) {
  char max[32], to[32];
  ip_fmt_bytes(max, sizeof max, p->max_size);
  *reached = 0;
  if (p->ring_segment || p->ring_dropped_events) {
    char dropped[32], from[32];
    *reached = 1;
    ip_fmt_bytes(dropped, sizeof dropped, p->ring_dropped_bytes);
    ip_fmt_ns(from, sizeof from, p->kept_from_ns);
    if (p->has_trailer)
      ip_fmt_ns(to, sizeof to, p->end_ns);
    snprintf(buf, len,
             "%s, policy ring: reached; the oldest %llu events (%s) were dropped; kept: from %s "
             "after the start to %s%s%s",
             max, (unsigned long long)p->ring_dropped_events, dropped, from,
             p->has_trailer ? to : "the last event", p->has_trailer ? " (the end)" : "",
             p->ring_prev_missing ? "; the segment before this one (.prev) is missing: its "
                                    "events are neither here nor counted as dropped"
                                  : "");
    return buf;
  }
  if (!p->size_policy)
    return NULL;
  if (!strcmp(p->size_policy, "stop") && p->write_error &&
      !strncmp(p->write_error, "the trace reached its size limit", 32)) {
    char at[32], lost[32];
    *reached = 1;
    ip_fmt_ns(at, sizeof at, p->stopped_ns);
    ip_fmt_ns(to, sizeof to, p->end_ns);
    ip_fmt_ns(lost, sizeof lost, p->end_ns - p->stopped_ns);
    int n = snprintf(
        buf, len,
        "%s, policy stop: reached; recording stopped %s after the start, after %llu events; ", max,
        at, (unsigned long long)p->trailer_events);
    if (n > 0 && (size_t)n < len && p->ran_on)
      snprintf(buf + n, len - (size_t)n,
               "the process ran on to %s: its last %s are not in the trace", to, lost);
    else if (n > 0 && (size_t)n < len)
      snprintf(buf + n, len - (size_t)n, "nothing later is in the trace");
    return buf;
  }
  snprintf(buf, len, "%s, policy %s: not reached, nothing dropped", max, p->size_policy);
  return buf;
}

const char *ip_interval_status(const ip_process *p, char *buf, size_t len) {
  if (!p->interval)
    return NULL;
  char from[32], to[32], took[32];
  uint64_t end = p->end_ns > p->interval_from_ns ? p->end_ns : p->interval_from_ns;
  ip_fmt_ns(from, sizeof from, p->interval_from_ns);
  ip_fmt_ns(to, sizeof to, end);
  ip_fmt_ns(took, sizeof took, end - p->interval_from_ns);
  snprintf(buf, len, "%u: from %s to %s after the process's start (%s)", p->interval_number, from,
           to, took);
  return buf;
}
