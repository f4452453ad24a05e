/* export/timeline_budget.h - the size bound of the exports that log every
 * call for a timeline (speedscope's evented profiles, Perfetto's slices), as
 * the Chrome export bounds its own (export/call_budget.h): the longest
 * calls that fit in the format's default size, or --max-size / --max-events,
 * are written, the rest left out with their callees, and one stderr line
 * says what was left out and how to get more. */
#ifndef INCLPROF_EXPORT_TIMELINE_BUDGET_H
#define INCLPROF_EXPORT_TIMELINE_BUDGET_H

#include <stdint.h>
#include <stdio.h>

#include "export/call_log.h"
#include "export/call_budget.h"
#include "export/exporter.h"

/* The bytes a format writes for one call (an estimate within a few bytes). */
typedef uint32_t (*ip_call_size_fn)(const ip_session *s, const ip_thread *t, uint32_t func,
                                    uint64_t start_ns, uint64_t dur_ns);

typedef struct ip_timeline_budget {
  const char *format;
  const ip_export_opts *o;
  uint64_t default_max; /* the format's size bound without --max-size */
  ip_call_size_fn size;
  ip_call_log *log;
  ip_call_visitor visitor; /* sizes each kept call, then hands it to the log */
  ip_budget budget;
  ip_budget_cut cut;
  uint64_t floor;      /* calls ranked lower cannot be kept (ip_budget_floor): not logged */
  uint64_t next_floor; /* the number of calls at which floor is found again */
  uint8_t *keep_stack; /* the open calls' verdicts, by depth in the thread */
  size_t depth, cap;
  uint64_t left_out;
  uint64_t fit_calls, fit_bytes; /* the limits of the replay (UINT64_MAX: none) */
} ip_timeline_budget;

/* The log (as ip_call_log_new) with every accepted call sized; its visitor
 * is &tb->visitor. */
void ip_timeline_budget_init(ip_timeline_budget *tb, const char *format, const ip_export_opts *o,
                             uint64_t default_max, ip_call_size_fn size);
/* After the replay: which calls fit; fixed is the bytes of everything else. */
void ip_timeline_budget_plan(ip_timeline_budget *tb, const ip_session *s, uint64_t fixed);
/* Hands thread index t's calls to fn in time order (ip_call_log_replay),
 * those the plan keeps. */
void ip_timeline_budget_replay(ip_timeline_budget *tb, size_t t, const ip_timeline_fn *fn);
/* One stderr line when calls were left out. */
void ip_timeline_budget_report(const ip_timeline_budget *tb, FILE *err, uint64_t fixed);
void ip_timeline_budget_free(ip_timeline_budget *tb);

/* An exporter's begin and discard: job->stream becomes a new budget (as
 * ip_timeline_budget_init) and the replay's visitor is its; discard frees it. */
const ip_call_visitor *ip_timeline_budget_begin(ip_export_job *job, const char *format,
                                                uint64_t default_max, ip_call_size_fn size);
void ip_timeline_budget_discard(ip_export_job *job);

#endif
