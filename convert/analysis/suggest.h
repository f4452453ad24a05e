/* analysis/suggest.h - which functions to leave uninstrumented (`inclprof
 * suggest`): each function's probe cost (its traced events times the
 * calibrated probe cost), that cost's share of its own time on CPU (its
 * Elapsed Inclusive less its waits off the CPU: its distortion) and of the
 * session, its trace bytes; each thread's probe cost
 * against its own time on CPU in instrumented code (its Application
 * Inclusive: what the probes slow it by); and a greedy choice that excludes
 * the most distorted functions until no thread is slowed by more than a
 * limit (a function distorted less than that limit is never excluded),
 * keeping main, the thread roots, named functions and functions
 * whose exclusion would fold too much untraced time into their callers. */
#ifndef INCLPROF_SUGGEST_H
#define INCLPROF_SUGGEST_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef enum ip_verdict {
  IP_KEEP_UNDER, /* kept: the overhead was already under the limit */
  IP_KEEP_ROOT,  /* kept: main or a thread's outermost function */
  IP_KEEP_NAMED, /* kept: named by --keep */
  IP_KEEP_FOLD,  /* kept: excluding it would fold too much time into a caller */
  IP_KEEP_CHEAP, /* kept: its probes cost under IP_SUGGEST_MIN_GAIN_PCT of the session */
  IP_KEEP_FAIR,  /* kept: its probes are under the limit of its own time on CPU */
  IP_EXCLUDE     /* excluded (instrumented: exclude + exclude-calls; library: exclude-calls) */
} ip_verdict;

/* Functions whose probes cost less than this share of the session (%) are
 * never excluded: nothing measurable to gain, their rows to lose; a thread
 * whose probes cost less than this share of the wall time is not slowed. */
#define IP_SUGGEST_MIN_GAIN_PCT 0.1

typedef struct ip_suggest_fn {
  uint32_t func;     /* index into ip_session.funcs */
  uint64_t calls;    /* summed over threads */
  uint64_t cpu_incl; /* Elapsed Inclusive less its waits off the CPU (preempted, blocked) */
  uint64_t events_before, events_after;
  uint64_t fold_ns;   /* untraced time excluding it hands to callers (when computed) */
  uint32_t fold_into; /* the caller getting most of it, UINT32_MAX when none */
  ip_verdict verdict;
} ip_suggest_fn;

typedef struct ip_suggest_opts {
  double max_overhead_pct; /* estimated probe cost limit, % of the session */
  double max_fold_pct;     /* largest untraced time one exclusion may fold, % of the session */
  const char *const *keep; /* globs matched against the assembler and demangled names */
  size_t n_keep;
} ip_suggest_opts;

/* One thread's probe cost before and after the exclusions. */
typedef struct ip_suggest_thread {
  uint32_t thread; /* index into ip_session.threads */
  uint64_t cpu_ns; /* its Application Inclusive (compensated): its own work */
  uint64_t events_before, events_after;
} ip_suggest_thread;

typedef struct ip_suggest {
  ip_suggest_fn *fns; /* every function that ran, most costly (before) first */
  size_t n;
  ip_suggest_thread *threads; /* every thread, most slowed (before) first */
  size_t n_threads;
  uint64_t wall_ns;       /* the session's wall time: first thread start to last thread end */
  double probe_cost_ns;   /* per event, weighted over the processes */
  double bytes_per_event; /* trace bytes written / events, 0 when unknown */
  uint64_t session_ns;    /* session Elapsed Inclusive (compensated) */
  uint64_t events_before, events_after;
  size_t n_excluded;
} ip_suggest;

/* Computes the table and the choice; the session must be loaded compensated. */
void ip_suggest_run(const ip_session *s, const ip_suggest_opts *o, ip_suggest *out);
void ip_suggest_free(ip_suggest *g);
/* Whether a glob matches the function's assembler or demangled name. */
int ip_func_matches(const ip_func *fn, const char *glob);
/* Estimated probe cost of events, % of the session. */
double ip_suggest_pct(const ip_suggest *g, uint64_t events);
/* Estimated probe cost of events, % of a thread's own time on CPU (t's
 * cpu_ns; 0 when it has none). */
double ip_suggest_thread_pct(const ip_suggest *g, const ip_suggest_thread *t, uint64_t events);
/* Whether t's probes cost enough to count: at least IP_SUGGEST_MIN_GAIN_PCT
 * of the session's wall time (a thread that mostly sleeps is not slowed by
 * a few probes, however small its time on CPU). */
int ip_suggest_thread_counts(const ip_suggest *g, const ip_suggest_thread *t);
/* The most slowed counting thread's ip_suggest_thread_pct, before or after. */
double ip_suggest_worst_pct(const ip_suggest *g, int after);

#endif
