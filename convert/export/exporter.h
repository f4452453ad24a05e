/* export/exporter.h - the interface every export format implements.  A
 * format is one file that defines one ip_exporter (its name, default output
 * file, the format-specific options it accepts, an optional streaming visitor
 * and its write function) and one line in export/exporters.c's list.  The
 * command line, its usage text and its option checks are derived from the
 * list; a writer reads only ip_export_opts, the options already parsed and
 * checked. */
#ifndef INCLPROF_EXPORTER_H
#define INCLPROF_EXPORTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

/* Which measure a format puts first (pprof's default sample type, callgrind's
 * first event, the folded value). */
typedef enum ip_export_value {
  IP_VALUE_ELAPSED,
  IP_VALUE_APPLICATION,
  IP_VALUE_SAMPLES
} ip_export_value;

/* The options a writer reads.  Zero is every default: all threads, elapsed. */
typedef struct ip_export_opts {
  ip_level by;              /* --by LEVEL (default function) */
  int merge_threads;        /* --merge-threads */
  ip_export_value value;    /* --value */
  uint64_t min_duration_ns; /* --min-duration: calls shorter are left out */
  uint64_t max_events;      /* --max-events: 0 = no limit */
  uint64_t max_size;        /* --max-size in bytes: 0 = the format's default, UINT64_MAX = none */
  ip_selection sel;         /* --thread, --process, --time-range (and --slowest's calls) */
  const char *slowest;      /* --slowest FN: only FN's slowest calls and what ran inside them */
  uint64_t slowest_calls;   /* --slowest-calls N: how many (0: 10) */
  int critical;             /* --critical: the wake-up flows and the critical-path track */
} ip_export_opts;

/* The format-specific options, as bits of ip_exporter.options.  The options
 * every format takes (--output, --raw, --thread, --process) have none. */
enum {
  IP_EXOPT_BY = 1u << 0,
  IP_EXOPT_MERGE_THREADS = 1u << 1,
  IP_EXOPT_VALUE = 1u << 2,
  IP_EXOPT_MIN_DURATION = 1u << 3,
  IP_EXOPT_MAX_EVENTS = 1u << 4,
  IP_EXOPT_TIME_RANGE = 1u << 5,
  IP_EXOPT_MAX_SIZE = 1u << 6,
  IP_EXOPT_SLOWEST = 1u << 7,
  IP_EXOPT_SLOWEST_CALLS = 1u << 8,
  IP_EXOPT_CRITICAL = 1u << 9,
};

/* One export being written. */
typedef struct ip_export_job {
  const ip_export_opts *opts;
  FILE *out;
  const char *out_name;        /* for messages: the file's name, "-" for stdout */
  void *stream;                /* a streaming format's state, from its begin */
  const ip_critical *critical; /* the critical path (formats with ip_exporter.critical) */
  void *by_file;               /* a format written file by file: what it kept (file_done) */
} ip_export_job;

typedef struct ip_exporter {
  const char *name;           /* --format NAME */
  const char *readers;        /* for --help: the tools that open it */
  const char *default_output; /* when there is no --output */
  unsigned options;           /* IP_EXOPT_* it accepts */
  int sums_only;              /* it writes sums, no call path (see ip_keep) */
  unsigned latency;           /* the per-call distributions it writes (ip_load_opts.latency) */
  int operations;             /* it writes coroutine operations (ip_load_opts.operations) */
  int critical; /* it shows the critical path: traces with wake edges are replayed twice
                   (ip_session_load_critical) */
  /* Streaming formats only (else NULL): called before the traces are loaded;
   * sets job->stream and returns the visitor that sees every replayed call. */
  const ip_call_visitor *(*begin)(ip_export_job *job);
  /* With begin: frees job->stream when a load failed (nothing is written). */
  void (*discard)(ip_export_job *job);
  /* Writes (a streaming format: finishes) the file from the loaded session.
   * Returns 0, or -1 after printing a one-line error. */
  int (*write)(ip_export_job *job, const ip_session *s);
  /* Formats that take what they need of each file's call trees as the file
   * is read (else NULL): called once per file, in file order, when its
   * threads have joined the session (ip_load_opts.file_done, ctx the job),
   * after which their trees are freed; write finishes from job->by_file. */
  void (*file_done)(void *job, ip_session *s, size_t first_thread);
  /* With file_done: frees job->by_file when the load failed. */
  void (*files_discard)(ip_export_job *job);
} ip_exporter;

/* Every format, in the order --help lists them; NULL-terminated. */
extern const ip_exporter *const ip_exporters[];

/* The format called name; NULL when there is none. */
const ip_exporter *ip_exporter_find(const char *name);

/* "csv, pprof, chrome, callgrind or folded": the formats accepting every
 * option in mask (0: all formats), into buf. */
void ip_exporter_names(unsigned mask, char *buf, size_t len);

#endif
