/* views/views.h - the report's text views of a loaded session: the header (what
 * was read and how values were computed), the flat table per level, the call
 * tree, and the callers / callees of one function. */
#ifndef INCLPROF_VIEWS_H
#define INCLPROF_VIEWS_H

#include <stddef.h>
#include <stdio.h>

#include "model/model.h"

typedef struct ip_view_opts {
  ip_level by;
  ip_sort sort;
  size_t top;  /* 0 = all rows (tree: children per node) */
  int samples; /* show the sample columns */
  ip_selection sel;
  const ip_skipped *skipped; /* the program's functions with no row, or NULL */
  int per_call;              /* the per-call columns (average, minimum, maximum) */
  int exclusive;             /* --wait: the exclusive breakdown too */
  size_t width;              /* the terminal's width: names are shortened to fit (0: never) */
  size_t depth;              /* tree: call paths down to this many levels (0: all) */
  double min_percent;        /* tree: subtrees under this % of the session's total left out */
  int latency;               /* --latency: per-call distributions instead of the values */
  int app_value;             /* --value application: rank and distribute Application time */
} ip_view_opts;

void ip_view_header(FILE *out, const ip_session *s, const ip_view_opts *o);
void ip_view_table(FILE *out, const ip_session *s, const ip_view_opts *o);
void ip_view_tree(FILE *out, const ip_session *s, const ip_view_opts *o);
/* The wait breakdown table (report --wait). */
void ip_view_wait(FILE *out, const ip_session *s, const ip_view_opts *o);
/* Callers (callees = 0) or callees (callees = 1) of the function whose
 * demangled or assembler name is fn.  Returns -1 if no such function ran. */
int ip_view_callers(FILE *out, const ip_session *s, const ip_view_opts *o, const char *fn,
                    int callees);

/* report --callees FN's second table: FN's calls per call line (nothing
 * when no call of FN has a known line). */
void ip_view_call_lines(FILE *out, const ip_session *s, const ip_view_opts *o, const char *fn);

/* Exclusive samples by source line (by_address = 0) or instruction of the
 * function named fn (NULL: all).  Returns -1 when no sample has a known
 * address there (no sampling, or a trace of an older runtime). */
int ip_view_lines(FILE *out, const ip_session *s, const ip_view_opts *o, const char *fn,
                  int by_address);

/* Per function, the distribution of its calls' Inclusive time (report
 * --latency; the session loaded with ip_load_opts.latency). */
void ip_view_latency(FILE *out, const ip_session *s, const ip_view_opts *o);
/* The same columns for one call path (report --tree --latency). */
struct ip_ttable;
void ip_view_latency_titles(struct ip_ttable *t);
void ip_view_latency_cells(struct ip_ttable *t, const ip_lat *h);

/* The slowest calls found by w (report --slowest FN; the session of its
 * second replay): each with its start, thread, times and wait breakdown,
 * and the call paths inside it. */
void ip_view_slowest(FILE *out, const ip_session *s, const ip_view_opts *o, const ip_slowest *w);

/* The program's functions that have no row, and why (report --missing). */
void ip_view_missing(FILE *out, const ip_skipped *k);
/* The header's line counting them (nothing when there are none). */
void ip_view_missing_line(FILE *out, const ip_skipped *k);

/* How the process's trace ended, in one sentence, when it did not end
 * normally (recording stopped early, still running, killed); else NULL. */
const char *ip_trace_status(const ip_process *p, char *buf, size_t len);
/* One sentence on the size limit (INCLPROF_MAX_SIZE): its policy, whether it
 * was reached and what was dropped (ring: which time window is kept).  NULL
 * when the trace was written without a limit; *reached says whether it was hit. */
const char *ip_size_limit_status(const ip_process *p, char *buf, size_t len, int *reached);

/* Shared by the table and tree views: the value columns' titles and cells. */
struct ip_ttable;
void ip_view_value_titles(struct ip_ttable *t, int samples);
void ip_view_value_cells(struct ip_ttable *t, const ip_session *s, const ip_values *v, int samples);

#endif
