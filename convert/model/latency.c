/* model/latency.c - sparse log-linear histograms of per-call times (see
 * model/latency.h), and their sums per function. */
#include "model/latency.h"

#include <stdlib.h>
#include <string.h>

#include "latency_buckets.h"
#include "util/util.h"

/* The position of row r among the kept rows. */
static unsigned row_slot(uint64_t present, unsigned r) {
  return (unsigned)__builtin_popcountll(present & ((1ull << r) - 1));
}

/* The counts of row r, made when absent. */
static uint64_t *row_of(ip_lat *h, unsigned r) {
  unsigned at = row_slot(h->present, r);
  if (!(h->present >> r & 1)) {
    unsigned n = (unsigned)__builtin_popcountll(h->present);
    h->rows = ip_must_realloc(h->rows, n + 1, sizeof *h->rows);
    memmove(&h->rows[at + 1], &h->rows[at], (n - at) * sizeof *h->rows);
    memset(&h->rows[at], 0, sizeof *h->rows);
    h->present |= 1ull << r;
  }
  return h->rows[at];
}

void ip_lat_add(ip_lat *h, uint64_t v) {
  uint32_t b = ip_lat_bucket(v);
  row_of(h, b / IP_LAT_SUB)[b % IP_LAT_SUB]++;
  if (!h->n++ || v < h->min)
    h->min = v;
  if (v > h->max)
    h->max = v;
}

void ip_lat_add_bucket(ip_lat *h, uint32_t b, uint64_t count, uint64_t min, uint64_t max) {
  if (!count || b >= IP_LAT_BUCKETS)
    return;
  row_of(h, b / IP_LAT_SUB)[b % IP_LAT_SUB] += count;
  if (!h->n || min < h->min)
    h->min = min;
  if (max > h->max)
    h->max = max;
  h->n += count;
}

void ip_lat_merge(ip_lat *to, const ip_lat *from) {
  unsigned i = 0;
  for (uint64_t p = from->present; p; p &= p - 1, i++) {
    uint64_t *row = row_of(to, (unsigned)__builtin_ctzll(p));
    for (unsigned k = 0; k < IP_LAT_SUB; k++)
      row[k] += from->rows[i][k];
  }
  if (from->n && (!to->n || from->min < to->min))
    to->min = from->min;
  to->n += from->n;
  if (from->max > to->max)
    to->max = from->max;
}

void ip_lat_free(ip_lat *h) {
  free(h->rows);
  memset(h, 0, sizeof *h);
}

void ip_lat_free_array(ip_lat *arr, size_t n) {
  for (size_t i = 0; arr && i < n; i++)
    free(arr[i].rows);
  free(arr);
}

uint64_t ip_lat_quantile(const ip_lat *h, double q) {
  if (!h->n)
    return 0;
  double want = q * (double)h->n;
  uint64_t rank = (uint64_t)want;
  if ((double)rank < want || rank == 0)
    rank++;
  if (rank >= h->n)
    return h->max;
  if (rank == 1)
    return h->min;
  uint64_t seen = 0;
  unsigned i = 0;
  for (uint64_t p = h->present; p; p &= p - 1, i++) {
    unsigned r = (unsigned)__builtin_ctzll(p);
    for (unsigned k = 0; k < IP_LAT_SUB; k++) {
      seen += h->rows[i][k];
      if (seen >= rank) {
        uint64_t mid = ip_lat_bucket_mid(r * IP_LAT_SUB + k);
        return mid < h->min ? h->min : mid > h->max ? h->max : mid;
      }
    }
  }
  return h->max;
}

uint64_t ip_lat_count_between(const ip_lat *h, uint64_t lo, uint64_t hi) {
  uint64_t n = 0;
  unsigned i = 0;
  for (uint64_t p = h->present; p; p &= p - 1, i++) {
    unsigned r = (unsigned)__builtin_ctzll(p);
    for (unsigned k = 0; k < IP_LAT_SUB; k++) {
      uint64_t mid = ip_lat_bucket_mid(r * IP_LAT_SUB + k);
      if (mid >= lo && mid < hi)
        n += h->rows[i][k];
    }
  }
  return n;
}

ip_lat_pair *ip_lat_by_function(const ip_session *s, const ip_selection *sel) {
  int any = s->lat_sums != NULL;
  for (size_t t = 0; t < s->n_threads; t++)
    any |= s->threads[t].lat != NULL || s->threads[t].fn_lat != NULL;
  if (!any)
    return NULL;
  ip_lat_pair *by = ip_must_calloc(s->n_funcs ? s->n_funcs : 1, sizeof *by);
  for (size_t f = 0; f < s->n_lat_sums && f < s->n_funcs; f++) { /* summed over the session */
    ip_lat_merge(&by[f].el, &s->lat_sums[f].el);
    ip_lat_merge(&by[f].app, &s->lat_sums[f].app);
  }
  for (size_t t = 0; t < s->n_threads; t++) {
    const ip_thread *th = &s->threads[t];
    if (!ip_selected_thread(s, sel, th))
      continue;
    for (size_t n = 1; th->lat && n < th->n_nodes; n++) {
      ip_lat_merge(&by[th->nodes[n].func].el, &th->lat[n].el);
      ip_lat_merge(&by[th->nodes[n].func].app, &th->lat[n].app);
    }
    for (size_t i = 0; th->fn_lat && i < th->n_fn; i++) { /* its paths dropped (ip_keep) */
      ip_lat_merge(&by[th->fn[i].func].el, &th->fn_lat[i].el);
      ip_lat_merge(&by[th->fn[i].func].app, &th->fn_lat[i].app);
    }
  }
  return by;
}

void ip_lat_free_all(ip_lat_pair *p, size_t n) {
  if (!p)
    return;
  for (size_t i = 0; i < n; i++) {
    ip_lat_free(&p[i].el);
    ip_lat_free(&p[i].app);
  }
  free(p);
}
