/* views/views.h - the report's text views of a loaded session: the header (what
 * was read and how values were computed), the flat table per level, the call
 * tree, and the callers / callees of one function. */
#ifndef INCLPROF_VIEWS_H
#define INCLPROF_VIEWS_H

#include <stddef.h>
#include <stdio.h>

#include "model/model.h"
#include "util/util.h"

/* The columns of the value tables (the table per level, --tree, --callers,
 * --callees, --wait), by the names --fields takes (views/fields.c). */
typedef enum ip_field {
  IP_F_CALLS,
  IP_F_EL_INCL,
  IP_F_EL_INCL_PCT,
  IP_F_EL_EXCL,
  IP_F_EL_EXCL_PCT,
  IP_F_APP_INCL,
  IP_F_APP_INCL_PCT,
  IP_F_APP_EXCL,
  IP_F_APP_EXCL_PCT,
  IP_F_SMP_INCL,
  IP_F_SMP_INCL_PCT,
  IP_F_SMP_EXCL,
  IP_F_SMP_EXCL_PCT,
  IP_F_AVG,
  IP_F_MIN,
  IP_F_MAX,
  IP_F_WALL,
  IP_F_EL_WALL,
  IP_F_APP_WALL,
  IP_F_NON_APP, /* the wait breakdown, inclusive ... */
  IP_F_PREEMPTED,
  IP_F_BLOCKED,
  IP_F_SYSCALLS,
  IP_F_FAULTS,
  IP_F_FAULT_COUNT,
  IP_F_OTHER,
  IP_F_NON_APP_EXCL, /* ... and exclusive, in the same order */
  IP_F_PREEMPTED_EXCL,
  IP_F_BLOCKED_EXCL,
  IP_F_SYSCALLS_EXCL,
  IP_F_FAULTS_EXCL,
  IP_F_FAULT_COUNT_EXCL,
  IP_F_OTHER_EXCL,
  IP_F_MODULE,
  IP_F_N
} ip_field;

typedef struct ip_fields {
  ip_field f[IP_F_N];
  size_t n; /* 0: the view's default */
} ip_fields;

typedef struct ip_view_opts {
  ip_level by;
  ip_sort sort;
  size_t top;  /* 0 = all rows (tree: children per node) */
  int samples; /* show the sample columns */
  ip_selection sel;
  const ip_skipped *skipped; /* the program's functions with no row, or NULL */
  int per_call;              /* the per-call columns (average, minimum, maximum) */
  int exclusive;             /* --wait: the exclusive breakdown too */
  size_t width;              /* the terminal's width: names are shortened to fit (0: never, and
                                the full set of columns) */
  size_t depth;              /* tree: call paths down to this many levels (0: all) */
  double min_percent;        /* tree: subtrees under this % of the session's total left out */
  int latency;               /* --latency: per-call distributions instead of the values */
  int app_value;             /* --value application: rank and distribute Application time */
  ip_fields fields;          /* --fields: the columns, in order (n 0: the default set) */
  int verbose;               /* --verbose: a header line per process, never grouped */
  int hot;                   /* --tree --hot: only the hottest path expanded */
} ip_view_opts;

void ip_view_header(FILE *out, const ip_session *s, const ip_view_opts *o);
void ip_view_table(FILE *out, const ip_session *s, const ip_view_opts *o);
void ip_view_tree(FILE *out, const ip_session *s, const ip_view_opts *o);
/* The tree written as the traces are read a second time, file by file, so
 * that no more than a few files' trees are held: ip_view_tree_file is the
 * second load's file_done (ip_load_opts), s the first load's session (its
 * totals, names and titles); changed: the second read differs from the
 * first (a trace written meanwhile), its trees left out from there. */
typedef struct ip_tree_stream {
  FILE *out;
  const ip_session *s;
  const ip_view_opts *o;
  int changed;
} ip_tree_stream;
void ip_view_tree_file(void *ctx, ip_session *again, size_t first_thread);
/* The wait breakdown table (report --wait). */
void ip_view_wait(FILE *out, const ip_session *s, const ip_view_opts *o);
/* Callers (callees = 0) or callees (callees = 1) of the function whose
 * demangled or assembler name is fn.  Returns -1 if no such function ran. */
int ip_view_callers(FILE *out, const ip_session *s, const ip_view_opts *o, const char *fn,
                    int callees);

/* The calls of a callee on one line (site: index into ip_session.sites). */
typedef struct ip_call_line {
  uint32_t callee, site;
  uint64_t calls, el, app;
} ip_call_line;

/* FN's calls by callee and call line, summed thread by thread. */
typedef struct ip_call_lines {
  ip_call_line *v;
  size_t n, cap;
} ip_call_lines;
/* Adds thread th's calls made by the function named fn. */
void ip_call_lines_add(ip_call_lines *c, const ip_session *s, const ip_thread *th, const char *fn);
/* report --callees FN's second table: FN's calls per call line (nothing
 * when no call of FN has a known line); frees c. */
void ip_view_call_lines(FILE *out, const ip_session *s, const ip_view_opts *o, const char *fn,
                        ip_call_lines *c);

/* The callers or callees of fn summed as the threads are read: the load's
 * file_done (ip_load_opts, ctx an ip_callers) adds each file's selected
 * threads before their trees are freed, ip_callers_print writes the view
 * from the loaded session (its totals and names) and frees what was summed.
 * The output is ip_view_callers' on the whole session. */
typedef struct ip_callers {
  const char *fn;
  int callees;
  const ip_selection *sel;
  ip_values *rows; /* by function */
  size_t n_rows;
  ip_values start; /* the calls no function made (thread start) */
  int found;       /* a function named fn ran */
  ip_call_lines lines;
} ip_callers;
void ip_callers_init(ip_callers *c, const char *fn, int callees, const ip_selection *sel);
void ip_callers_file(void *ctx, ip_session *s, size_t first_thread);
void ip_callers_free(ip_callers *c);
/* Returns -1 if no function named fn ran. */
int ip_callers_print(FILE *out, const ip_session *s, const ip_view_opts *o, ip_callers *c);

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

/* Per coroutine, its operations (report --operations; the session loaded
 * with ip_load_opts.operations).  Returns -1 when there are none. */
int ip_view_operations(FILE *out, const ip_session *s, const ip_view_opts *o);
/* What the run's wall time waited on (report --critical; the session of
 * ip_session_load_critical, c its path). */
void ip_view_critical(FILE *out, const ip_session *s, const ip_view_opts *o, const ip_critical *c);
/* The wall time predicted with fn's running time factor times shorter
 * (report --what-if; c loaded with c->what_if = fn). */
void ip_view_what_if(FILE *out, const ip_session *s, const ip_critical *c, const char *fn,
                     double factor);

/* The program's functions that have no row, and why (report --missing),
 * names cut to fit width (0: whole). */
void ip_view_missing(FILE *out, const ip_skipped *k, size_t width);
/* The header's line counting them (nothing when there are none). */
void ip_view_missing_line(FILE *out, const ip_skipped *k);

/* How the process's trace ended, in one sentence, when it did not end
 * normally (recording stopped early, still running, killed); else NULL. */
const char *ip_trace_status(const ip_process *p, char *buf, size_t len);
/* One sentence on the size limit (INCLPROF_MAX_SIZE): its policy, whether it
 * was reached and what was dropped (ring: which time window is kept).  NULL
 * when the trace was written without a limit; *reached says whether it was hit. */
const char *ip_size_limit_status(const ip_process *p, char *buf, size_t len, int *reached);
/* An interval's profile: "3: from 6.000 s to 8.000 s after the process's
 * start (2.000 s)"; else NULL. */
const char *ip_interval_status(const ip_process *p, char *buf, size_t len);

/* views/fields.c: "a,b,c" -> fields (0), or -1 with what is wrong in err. */
int ip_fields_parse(const char *list, ip_fields *out, char *err, size_t errlen);
/* 0 when every field goes with rows of this level, else -1 (err says which). */
int ip_fields_check(const ip_fields *f, ip_level rows, char *err, size_t errlen);
/* Every field's name, for the usage text (the same as the table in
 * views/fields.c, in its order). */
#define IP_FIELD_NAMES                                                                             \
  "calls, el-incl, el-incl%, el-excl, el-excl%,\n"                                                 \
  "app-incl, app-incl%, app-excl, app-excl%,\n"                                                    \
  "smp-incl, smp-incl%, smp-excl, smp-excl%,\n"                                                    \
  "avg, min, max, wall, el/wall, app/wall,\n"                                                      \
  "non-app, preempted, blocked, syscalls, faults,\n"                                               \
  "faults#, other, non-app-excl, preempted-excl,\n"                                                \
  "blocked-excl, syscalls-excl, faults-excl,\n"                                                    \
  "faults#-excl, other-excl, module"
const char *ip_field_title(ip_field f);
/* Appends f's cell for values v (th: the row's thread, for its wall time). */
struct ip_ttable;
/* Elapsed - Application less what the wait breakdown w (IP_W_*) explains:
 * report --wait's Other. */
uint64_t ip_field_other(uint64_t el, uint64_t app, const uint64_t *w);
void ip_field_cell(struct ip_ttable *t, ip_field f, const ip_session *s, const ip_values *v,
                   const ip_thread *th);

/* views/value_table.c: a table of fields and names, printed with the fields
 * chosen, or the full or compact set by the width; a Module column where
 * one name is on rows of two functions. */
typedef struct ip_vtable {
  const ip_session *s;
  const ip_view_opts *o;
  ip_level rows; /* what a row is (tree nodes and callers are functions) */
  int wait;      /* the wait breakdown's sets by default */
  ip_field col[IP_F_N];
  size_t n_col;    /* the fields of the table's columns; the names come last */
  uint32_t *funcs; /* per row (0: the titles): its function, or UINT32_MAX */
  size_t n_rows, cap;
  ip_ttable t;
} ip_vtable;

void ip_vtable_init(ip_vtable *v, const ip_session *s, const ip_view_opts *o, ip_level rows,
                    int wait, const char *name_title);
/* A row: values val (th: a thread row's thread, or NULL), the row's function
 * (UINT32_MAX: none), its name indented by level. */
void ip_vtable_row(ip_vtable *v, const ip_values *val, const ip_thread *th, uint32_t func,
                   unsigned level, const char *name);
/* A row of text only, in the names' column. */
void ip_vtable_note(ip_vtable *v, unsigned level, const char *text);
void ip_vtable_print(ip_vtable *v, FILE *out, int indent);
void ip_vtable_free(ip_vtable *v);

#endif
