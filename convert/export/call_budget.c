/* export/call_budget.c - the longest calls that fit a bounded timeline
 * export (see export/call_budget.h): one bin per distinct rank in a hash table, sorted
 * from the highest rank down when the plan is made. */
#include "export/call_budget.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static size_t slot_of(uint64_t key, size_t cap) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return (size_t)key & (cap - 1);
}

/* The slot of rank in a table of cap slots: its bin's, or the empty one
 * where it goes. */
static size_t slot_in(const ip_budget_bin *bins, size_t cap, uint64_t rank) {
  size_t i = slot_of(rank, cap);
  while (bins[i].calls && bins[i].key != rank)
    i = (i + 1) & (cap - 1);
  return i;
}

/* A table for at least n bins, a quarter full. */
static void grow(ip_budget *b, size_t n) {
  size_t cap = 1024;
  while (cap < 4 * n)
    cap *= 2;
  ip_budget_bin *bins = ip_must_calloc(cap, sizeof *bins);
  for (size_t i = 0; i < b->cap_bins; i++)
    if (b->bins[i].calls)
      bins[slot_in(bins, cap, b->bins[i].key)] = b->bins[i];
  free(b->bins);
  b->bins = bins;
  b->cap_bins = cap;
}

/* The batch into the bins: every slot's memory asked for first, then each
 * call counted in its bin. */
static void flush_batch(ip_budget *b) {
  if (2 * (b->n_bins + b->n_batch) > b->cap_bins)
    grow(b, b->n_bins + b->n_batch);
  size_t slot[IP_BUDGET_BATCH];
  for (size_t k = 0; k < b->n_batch; k++) {
    slot[k] = slot_of(b->batch_rank[k], b->cap_bins);
    __builtin_prefetch(&b->bins[slot[k]], 1);
  }
  for (size_t k = 0; k < b->n_batch; k++) {
    uint64_t rank = b->batch_rank[k];
    size_t i = slot[k];
    while (b->bins[i].calls && b->bins[i].key != rank)
      i = (i + 1) & (b->cap_bins - 1);
    ip_budget_bin *bin = &b->bins[i];
    if (!bin->calls) {
      bin->key = rank;
      b->n_bins++;
    }
    uint32_t bytes = b->batch_bytes[k];
    bin->calls++;
    bin->bytes += bytes;
    if (bytes > bin->max_bytes)
      bin->max_bytes = bytes;
  }
  b->n_batch = 0;
}

void ip_budget_add(ip_budget *b, uint64_t rank, uint32_t bytes) {
  if (b->n_batch == IP_BUDGET_BATCH)
    flush_batch(b);
  b->batch_rank[b->n_batch] = rank;
  b->batch_bytes[b->n_batch++] = bytes;
  b->calls++;
  b->bytes += bytes;
}

static int higher_first(const void *a, const void *b) {
  uint64_t x = ((const ip_budget_bin *)a)->key, y = ((const ip_budget_bin *)b)->key;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* The bins with calls into to[0..n_bins) (to may be b->bins). */
static void pack(const ip_budget *b, ip_budget_bin *to) {
  size_t n = 0;
  for (size_t i = 0; i < b->cap_bins; i++)
    if (b->bins[i].calls)
      to[n++] = b->bins[i];
}

/* The bins packed and sorted, the highest rank first: a plain array from
 * then on (a later add makes a table of them again). */
static void sort_bins(ip_budget *b) {
  pack(b, b->bins);
  b->cap_bins = b->n_bins;
  qsort(b->bins, b->n_bins, sizeof *b->bins, higher_first);
}

/* The walk of the bins, from the highest rank down: fills cut with what
 * fits; returns the rank of the first bin not wholly taken (0 when every
 * bin was). */
static uint64_t walk(const ip_budget_bin *bins, size_t n_bins, uint64_t max_calls,
                     uint64_t max_bytes, ip_budget_cut *cut) {
  uint64_t calls_left = max_calls ? max_calls : UINT64_MAX;
  uint64_t bytes_left = max_bytes ? max_bytes : UINT64_MAX;
  *cut = (ip_budget_cut){.key = UINT64_MAX};
  for (size_t i = 0; i < n_bins; i++) {
    const ip_budget_bin *bin = &bins[i];
    uint64_t take = bin->calls;
    if (take > calls_left)
      take = calls_left;
    if (bin->bytes > bytes_left) {
      uint64_t fit = bytes_left / (bin->max_bytes ? bin->max_bytes : 1);
      if (take > fit)
        take = fit;
    }
    if (take == bin->calls) {
      calls_left -= take;
      bytes_left -= bin->bytes;
      cut->calls += take;
      cut->bytes += bin->bytes;
      cut->key = bin->key;
      cut->quota = take;
      cut->min_dur_ns = bin->key >> 16;
      continue;
    }
    if (take) { /* part of this rank: an upper bound of its size */
      cut->calls += take;
      cut->bytes += take * bin->max_bytes;
      cut->key = bin->key;
      cut->quota = take;
      cut->min_dur_ns = bin->key >> 16;
    }
    return bin->key;
  }
  return 0;
}

void ip_budget_plan(ip_budget *b, uint64_t max_calls, uint64_t max_bytes, ip_budget_cut *cut) {
  flush_batch(b);
  *cut = (ip_budget_cut){.all = 1, .calls = b->calls, .bytes = b->bytes};
  if ((!max_calls || b->calls <= max_calls) && (!max_bytes || b->bytes <= max_bytes)) {
    if (b->deferred)
      cut->min_dur_ns = b->calls ? b->min_rank >> 16 : 0;
    else if (b->n_bins) {
      sort_bins(b);
      cut->min_dur_ns = b->bins[b->n_bins - 1].key >> 16;
    }
    return;
  }
  sort_bins(b);
  walk(b->bins, b->n_bins, max_calls, max_bytes, cut);
}

uint64_t ip_budget_floor(ip_budget *b, uint64_t max_calls, uint64_t max_bytes) {
  if ((!max_calls || b->calls <= max_calls) && (!max_bytes || b->bytes <= max_bytes))
    return 0;
  flush_batch(b);
  ip_budget_bin *bins = ip_must_realloc(NULL, b->n_bins, sizeof *bins);
  pack(b, bins);
  qsort(bins, b->n_bins, sizeof *bins, higher_first);
  ip_budget_cut cut;
  uint64_t floor = walk(bins, b->n_bins, max_calls, max_bytes, &cut);
  free(bins);
  return floor;
}

void ip_budget_free(ip_budget *b) {
  free(b->bins);
  *b = (ip_budget){0};
}

/* "12.3 MiB", "850 bytes" */
static void put_size(char *buf, size_t len, uint64_t bytes) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)bytes;
  size_t u = 0;
  while (v >= 1024 && u + 1 < sizeof units / sizeof *units) {
    v /= 1024;
    u++;
  }
  snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* "12.345us" */
static void put_duration(char *buf, size_t len, uint64_t ns) {
  if (ns < 1000)
    snprintf(buf, len, "%" PRIu64 "ns", ns);
  else if (ns < 1000000)
    snprintf(buf, len, "%.3fus", (double)ns / 1e3);
  else if (ns < 1000000000)
    snprintf(buf, len, "%.3fms", (double)ns / 1e6);
  else
    snprintf(buf, len, "%.3fs", (double)ns / 1e9);
}

void ip_budget_say(FILE *err, const char *format, const ip_budget *b, const ip_budget_cut *c,
                   uint64_t fixed, uint64_t max_size, int size_given, uint64_t max_events,
                   uint64_t left_out) {
  if (!left_out)
    return;
  char all[32], kept[32], shortest[32], limit[64], max[32];
  put_size(all, sizeof all, b->bytes + fixed);
  put_size(kept, sizeof kept, c->bytes + fixed);
  put_duration(shortest, sizeof shortest, c->min_dur_ns);
  put_size(max, sizeof max, max_size);
  int by_count = max_events && c->calls == max_events;
  if (by_count)
    snprintf(limit, sizeof limit, "--max-events %" PRIu64, max_events);
  else
    snprintf(limit, sizeof limit, "%s %s", size_given ? "--max-size" : "the default size limit",
             max);
  fprintf(err,
          "inclprof export: %s: all %" PRIu64 " calls would take %s, over %s: kept the %" PRIu64
          " longest (%s and longer, %s), left out %" PRIu64 "; more with %s or --min-duration/"
          "--time-range\n",
          format, b->calls, all, limit, c->calls, shortest, kept, left_out,
          by_count ? "a larger --max-events N" : "--max-size SIZE (0: every call)");
}
