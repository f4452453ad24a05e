/* export/progress.h - a progress line on stderr while a large input is
 * replayed ("inclprof export: 12.3M calls replayed, 4 s"), shown only when
 * stderr is a terminal, erased when done.  It counts calls through the
 * replay's call visitor, passing each call on to the export's own visitor. */
#ifndef INCLPROF_EXPORT_PROGRESS_H
#define INCLPROF_EXPORT_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "model/model.h"

/* Inputs smaller than this (bytes, all files together) show no progress. */
#define IP_PROGRESS_MIN_BYTES (64u << 20)

typedef struct ip_progress {
  ip_call_visitor self;
  const ip_call_visitor *inner; /* may be NULL */
  uint64_t calls;
  time_t started, shown;
  int active;
} ip_progress;

/* The visitor to give the loader: inner itself when no progress is shown
 * (stderr not a terminal, or input under IP_PROGRESS_MIN_BYTES), else p's. */
const ip_call_visitor *ip_progress_start(ip_progress *p, const ip_call_visitor *inner,
                                         char *const *paths, size_t n_paths);

/* Erases the progress line. */
void ip_progress_finish(const ip_progress *p);

/* Total size in bytes of the files and directories (one level) named. */
uint64_t ip_progress_input_bytes(char *const *paths, size_t n_paths);

#endif
