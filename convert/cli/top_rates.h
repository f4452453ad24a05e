/* cli/top_rates.h - what `inclprof top` shows (top_rates.c): per function,
 * the calls and exclusive times a growing trace gained over the last
 * seconds, from the totals read at each refresh. */
#ifndef INCLPROF_TOP_RATES_H
#define INCLPROF_TOP_RATES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

typedef struct top_snapshot top_snapshot;
typedef struct top_history {
  top_snapshot **v; /* oldest first */
  size_t n;
} top_history;

/* Adds the per-function totals of s, read at now_ns (CLOCK_MONOTONIC), and
 * drops the snapshots no longer needed for a window of window_ns. */
void top_history_add(top_history *h, const ip_session *s, uint64_t now_ns, uint64_t window_ns);
/* Prints the rows gained since the oldest snapshot kept (since the start
 * of the trace when there is only one), sorted by Application Exclusive
 * when by_app, else Elapsed Exclusive; at most rows rows, names cut to fit
 * width columns (0: whole). */
void top_history_print(const top_history *h, FILE *out, int by_app, size_t rows, size_t width);
void top_history_free(top_history *h);

#endif
