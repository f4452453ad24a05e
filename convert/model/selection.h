/* model/selection.h - which part of a profile a report or an export shows:
 * threads by tid, processes by pid, and (for exports of individual calls)
 * the calls overlapping a time range.  One type for every command, set by
 * the same options (--thread, --process, --time-range). */
#ifndef INCLPROF_SELECTION_H
#define INCLPROF_SELECTION_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

/* All zero selects everything. */
typedef struct ip_selection {
  int has_tid, has_pid, has_range;
  uint32_t tid, pid;
  uint64_t start_ns, end_ns; /* calls overlapping [start_ns, end_ns) after the session start */
} ip_selection;

/* Whether thread t (of s) is selected; sel may be NULL (everything). */
int ip_selected_thread(const ip_session *s, const ip_selection *sel, const ip_thread *t);

/* Whether a call starting at start_ns and lasting dur_ns is in the time
 * range (a call of duration 0 at the range's start is in it). */
int ip_selected_call(const ip_selection *sel, uint64_t start_ns, uint64_t dur_ns);

/* 0 when every tid and pid the selection names is in s; else -1 and a
 * one-line reason in err ("--thread 9: no such thread"). */
int ip_selection_check(const ip_session *s, const ip_selection *sel, char *err, size_t errlen);

#endif
