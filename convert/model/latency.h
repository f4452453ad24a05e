/* model/latency.h - the distribution of a function's (or a call path's)
 * calls: Elapsed and Application Inclusive time per call, in the log-linear
 * buckets of include/inclprof/latency_buckets.h (a quantile read from them
 * is within 0.78 % of the true value; the maximum is exact).  Replay fills
 * one pair per call path when ip_load_opts.latency is set; the views and the
 * CSV export merge them per function. */
#ifndef INCLPROF_LATENCY_H
#define INCLPROF_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "model/selection.h"

/* A sparse histogram: only the rows of buckets that hold a value are kept,
 * in row order (rows[i] is row k for the i-th bit k set in present). */
typedef struct ip_lat {
  uint64_t present;  /* bit r: row r is kept */
  uint64_t n;        /* values added */
  uint64_t min, max; /* the smallest and the largest value added (exact; min valid if n) */
  uint64_t (*rows)[64];
} ip_lat;

/* A call path's two distributions. */
typedef struct ip_lat_pair {
  ip_lat el, app;
} ip_lat_pair;

void ip_lat_add(ip_lat *h, uint64_t v);
/* count values in bucket b, whose smallest and largest are min and max (a
 * histogram kept elsewhere: the runtime's aggregate mode). */
void ip_lat_add_bucket(ip_lat *h, uint32_t b, uint64_t count, uint64_t min, uint64_t max);
/* to += from. */
void ip_lat_merge(ip_lat *to, const ip_lat *from);
void ip_lat_free(ip_lat *h);
/* Frees each of the n histograms of arr, then arr. */
void ip_lat_free_array(ip_lat *arr, size_t n);
/* The value at quantile q (0 <= q <= 1): the ceil(q * n)-th smallest value
 * (at least the first), exact when it is the smallest or the largest, else
 * the middle of its bucket within [min, max]; 0 when empty. */
uint64_t ip_lat_quantile(const ip_lat *h, double q);
/* How many values lie in [lo, hi) (bucket resolution: a bucket counts when
 * its middle does). */
uint64_t ip_lat_count_between(const ip_lat *h, uint64_t lo, uint64_t hi);

/* The distributions of every function over the selected threads of s,
 * indexed by function (s->n_funcs long, calloc'ed: free with
 * ip_lat_free_all).  NULL when the session was loaded without latency. */
ip_lat_pair *ip_lat_by_function(const ip_session *s, const ip_selection *sel);
void ip_lat_free_all(ip_lat_pair *p, size_t n);

#endif
