/* model/aggregate.h - the data values summed per function, module, thread or
 * process (the `--by` levels), restricted to a selection (model/selection.h), and
 * row sorting (the `--sort` columns).  Used by report and every tabular
 * export (CSV). */
#ifndef INCLPROF_AGGREGATE_H
#define INCLPROF_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "model/selection.h"

typedef enum ip_level { IP_BY_FUNCTION, IP_BY_MODULE, IP_BY_THREAD, IP_BY_PROCESS } ip_level;

/* "function", "module", "thread", "process" -> level; -1 if unknown. */
int ip_level_parse(const char *s, ip_level *out);
const char *ip_level_name(ip_level l);
#define IP_LEVEL_NAMES "function|module|thread|process"

typedef struct ip_row {
  uint32_t key; /* index into the session's funcs, modules, threads or processes */
  ip_values v;
} ip_row;

/* The rows of a level that have any value (calls, time or samples), unsorted.
 * Returns the count; *rows is malloc'ed (free it). */
size_t ip_aggregate(const ip_session *s, ip_level l, const ip_selection *sel, ip_row **rows);

/* Display name of a row: demangled function, module path, "tid (name)",
 * "pid executable".  Writes into buf when it has to compose; returns it or a
 * string owned by the session. */
const char *ip_row_name(const ip_session *s, ip_level l, uint32_t key, char *buf, size_t n);

typedef enum ip_sort {
  IP_SORT_ELAPSED_INCL,
  IP_SORT_ELAPSED_EXCL,
  IP_SORT_APP_INCL,
  IP_SORT_APP_EXCL,
  IP_SORT_CALLS,
  IP_SORT_SAMPLES_INCL,
  IP_SORT_SAMPLES_EXCL,
  IP_SORT_AVG,
  IP_SORT_MAX,
  IP_SORT_NAME,
  IP_SORT_NON_APP_INCL, /* Elapsed - Application Inclusive */
  IP_SORT_PREEMPTED,    /* the wait columns, inclusive */
  IP_SORT_BLOCKED,
  IP_SORT_SYSCALL,
  IP_SORT_FAULT,
  IP_SORT_CRIT_EXCL, /* the critical path's time (model/critical.h) */
  IP_SORT_CRIT_INCL
} ip_sort;

/* Column names for --sort (also accepted: the CSV column names). */
int ip_sort_parse(const char *s, ip_sort *out);
#define IP_SORT_NAMES                                                                              \
  "elapsed-inclusive|elapsed-exclusive|application-inclusive|application-exclusive|"               \
  "calls|inclusive-samples|exclusive-samples|avg|max|name|\n"                                      \
  "non-application-inclusive|offcpu-preempted|offcpu-blocked|syscall|page-fault|\n"                \
  "critical-exclusive|critical-inclusive"

/* Sorts rows: numbers descending, names ascending; ties by name. */
void ip_rows_sort(const ip_session *s, ip_level l, ip_row *rows, size_t n, ip_sort by);

#endif
