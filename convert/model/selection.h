/* model/selection.h - which part of a profile a report or an export shows:
 * threads by tid, processes by pid, and (for exports of individual calls)
 * the calls overlapping a time range.  One type for every command, set by
 * the same options (--thread, --process, --time-range). */
#ifndef INCLPROF_SELECTION_H
#define INCLPROF_SELECTION_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

/* A stretch of one thread's timeline: a call and what ran inside it. */
typedef struct ip_sel_window {
  uint32_t thread;           /* index into ip_session.threads */
  uint32_t depth;            /* the call's depth: calls inside are deeper */
  uint64_t start_ns, end_ns; /* the call's start and end on the thread's timeline */
} ip_sel_window;

/* All zero selects everything. */
typedef struct ip_selection {
  int has_tid, has_pid, has_range;
  uint32_t tid, pid;
  uint64_t start_ns, end_ns;    /* calls overlapping [start_ns, end_ns) after the session start */
  const ip_sel_window *windows; /* when n_windows > 0: only the calls in one of them */
  size_t n_windows;
} ip_selection;

/* Whether thread t (of s) is selected; sel may be NULL (everything). */
int ip_selected_thread(const ip_session *s, const ip_selection *sel, const ip_thread *t);

/* Whether a call of thread index `thread` at `depth`, starting at start_ns
 * and lasting dur_ns, is in the time range (a call of duration 0 at the
 * range's start is in it) and, when the selection has windows, in one of
 * them: the window's call itself or a deeper call within its start and end. */
int ip_selected_call(const ip_selection *sel, uint32_t thread, uint32_t depth, uint64_t start_ns,
                     uint64_t dur_ns);

/* 0 when every tid and pid the selection names is in s; else -1 and a
 * one-line reason in err ("--thread 9: no such thread"). */
int ip_selection_check(const ip_session *s, const ip_selection *sel, char *err, size_t errlen);

/* Whether fn names f by its pretty or assembler name (an assembler name with
 * GCC's "used as written" marker '*' also matches without it); a name
 * without a parameter list names every overload ("area" matches
 * "area(Circle const&)"). */
int ip_func_named(const ip_func *f, const char *fn);

#endif
