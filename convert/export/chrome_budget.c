/* export/chrome_budget.c - the longest calls that fit a bounded Chrome
 * export (see export/chrome_budget.h): one bin per distinct rank, sorted
 * from the highest rank down when the plan is made. */
#include "export/chrome_budget.h"

#include <stdlib.h>

#include "util/must_alloc.h"

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
  uint64_t calls_left = max_calls ? max_calls : UINT64_MAX;
  uint64_t bytes_left = max_bytes ? max_bytes : UINT64_MAX;
  *cut = (ip_budget_cut){.key = UINT64_MAX};
  for (size_t i = 0; i < b->n_bins; i++) {
    const ip_budget_bin *bin = &b->bins[i];
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
    break;
  }
}

void ip_budget_free(ip_budget *b) {
  ip_u64map_free(&b->by_key);
  free(b->bins);
  *b = (ip_budget){0};
}
