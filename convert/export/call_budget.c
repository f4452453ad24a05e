/* export/call_budget.c - the longest calls that fit a bounded timeline
 * export (see export/call_budget.h): one bin per distinct rank, sorted
 * from the highest rank down when the plan is made. */
#include "export/call_budget.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void ip_budget_add(ip_budget *b, uint64_t rank, uint32_t bytes) {
  uint32_t i = ip_u64map_get(&b->by_key, rank);
  if (i == UINT32_MAX) {
    if (b->n_bins == b->cap_bins) {
      b->cap_bins = b->cap_bins ? 2 * b->cap_bins : 1024;
      b->bins = ip_must_realloc(b->bins, b->cap_bins, sizeof *b->bins);
    }
    i = (uint32_t)b->n_bins++;
    b->bins[i] = (ip_budget_bin){.key = rank};
    ip_u64map_put(&b->by_key, rank, i);
  }
  ip_budget_bin *bin = &b->bins[i];
  bin->calls++;
  bin->bytes += bytes;
  if (bytes > bin->max_bytes)
    bin->max_bytes = bytes;
  b->calls++;
  b->bytes += bytes;
}

static int higher_first(const void *a, const void *b) {
  uint64_t x = ((const ip_budget_bin *)a)->key, y = ((const ip_budget_bin *)b)->key;
  return x < y ? 1 : x > y ? -1 : 0;
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
  *cut = (ip_budget_cut){.all = 1, .calls = b->calls, .bytes = b->bytes};
  if ((!max_calls || b->calls <= max_calls) && (!max_bytes || b->bytes <= max_bytes)) {
    if (b->n_bins) {
      qsort(b->bins, b->n_bins, sizeof *b->bins, higher_first);
      cut->min_dur_ns = b->bins[b->n_bins - 1].key >> 16;
    }
    return;
  }
  qsort(b->bins, b->n_bins, sizeof *b->bins, higher_first);
  walk(b->bins, b->n_bins, max_calls, max_bytes, cut);
}

uint64_t ip_budget_floor(const ip_budget *b, uint64_t max_calls, uint64_t max_bytes) {
  if ((!max_calls || b->calls <= max_calls) && (!max_bytes || b->bytes <= max_bytes))
    return 0;
  ip_budget_bin *bins = ip_must_realloc(NULL, b->n_bins, sizeof *bins);
  memcpy(bins, b->bins, b->n_bins * sizeof *bins);
  qsort(bins, b->n_bins, sizeof *bins, higher_first);
  ip_budget_cut cut;
  uint64_t floor = walk(bins, b->n_bins, max_calls, max_bytes, &cut);
  free(bins);
  return floor;
}

void ip_budget_free(ip_budget *b) {
  ip_u64map_free(&b->by_key);
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
