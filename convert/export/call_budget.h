/* export/call_budget.h - which calls a bounded timeline export (Chrome,
 * speedscope, Perfetto) keeps: the longest ones.  A first replay adds every call's rank and size; the plan
 * then keeps calls from the longest down until the next would pass the
 * limits (a number of calls, a number of bytes).  Among equal durations the
 * shallower call ranks first, so a kept call's caller (never shorter) is
 * always kept too and the slices stay well nested. */
#ifndef INCLPROF_EXPORT_CALL_BUDGET_H
#define INCLPROF_EXPORT_CALL_BUDGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/util.h"

typedef struct ip_budget_bin {
  uint64_t key;       /* ip_budget_rank of its calls */
  uint64_t calls;     /* how many */
  uint64_t bytes;     /* their size in the export, together */
  uint32_t max_bytes; /* the largest one's */
} ip_budget_bin;

/* The bins, in an open-addressing table by rank (a bin of no calls is an
 * empty slot; the table is at most half full), so that a call's bin is
 * found in one place of memory; the plan packs and sorts them, after which
 * no call is added. */
/* Calls added wait in a batch of IP_BUDGET_BATCH before they reach their
 * bins: the bins of a batch are fetched from memory together. */
#define IP_BUDGET_BATCH 64

typedef struct ip_budget {
  ip_budget_bin *bins;
  size_t n_bins, cap_bins; /* bins with calls; slots (a power of two) */
  uint64_t calls, bytes;   /* every call added */
  uint64_t batch_rank[IP_BUDGET_BATCH];
  uint32_t batch_bytes[IP_BUDGET_BATCH];
  size_t n_batch;
  /* Set by the user while every call so far fits the limits: calls are
   * counted (ip_budget_count), not binned, and the user adds them all again
   * (ip_budget_add, after clearing it and calls and bytes) before the
   * limits are passed.  min_rank: the lowest rank counted (set it to
 * UINT64_MAX with deferred). */
  int deferred;
  uint64_t min_rank;
} ip_budget;

/* What the plan keeps: every call ranked above key, and the first quota
 * calls (in replay order) ranked exactly key.  all: every call. */
typedef struct ip_budget_cut {
  int all;
  uint64_t key, quota;
  uint64_t calls, bytes; /* kept */
  uint64_t min_dur_ns;   /* the shortest kept call's duration */
} ip_budget_cut;

/* The rank of a call: longer first, then shallower.  Durations from 2^48 ns
 * (78 hours) and depths from 65535 on rank as those values. */
static inline uint64_t ip_budget_rank(uint64_t dur_ns, uint32_t depth) {
  uint64_t d = dur_ns < (1ull << 48) ? dur_ns : (1ull << 48) - 1;
  return d << 16 | (0xffffu - (depth < 0xffffu ? depth : 0xffffu));
}

void ip_budget_add(ip_budget *b, uint64_t rank, uint32_t bytes);

/* A call counted while the budget is deferred. */
static inline void ip_budget_count(ip_budget *b, uint64_t rank, uint32_t bytes) {
  b->calls++;
  b->bytes += bytes;
  if (rank < b->min_rank)
    b->min_rank = rank;
}

/* Keeps at most max_calls calls (0: no limit) of at most max_bytes bytes
 * together (0: no limit), the highest ranks first. */
void ip_budget_plan(ip_budget *b, uint64_t max_calls, uint64_t max_bytes, ip_budget_cut *cut);

/* During the writing replay: whether to write the call of this rank (counts
 * the calls of the cut's own rank against its quota). */
static inline int ip_budget_keep(ip_budget_cut *cut, uint64_t rank) {
  if (cut->all || rank > cut->key)
    return 1;
  if (rank < cut->key || !cut->quota)
    return 0;
  cut->quota--;
  return 1;
}

/* While calls are still being added: the rank below which no call can be
 * kept by the plan of every call, whatever calls are added later (with the
 * same or larger limits), or 0 when every call so far would be kept.  More
 * calls only fill the limits sooner, so the first rank the plan cannot take
 * whole never moves down; calls of that rank itself may still be kept. */
uint64_t ip_budget_floor(ip_budget *b, uint64_t max_calls, uint64_t max_bytes);

void ip_budget_free(ip_budget *b);

/* The one stderr line of a bounded export that left calls out: what all
 * calls would take, the bound that applied (max_size: the bytes bound, 0
 * none; size_given: it came from --max-size; max_events: --max-events, 0
 * none), what was kept and how to get more.  fixed: the export's bytes
 * besides the calls. */
void ip_budget_say(FILE *err, const char *format, const ip_budget *b, const ip_budget_cut *c,
                   uint64_t fixed, uint64_t max_size, int size_given, uint64_t max_events,
                   uint64_t left_out);

#endif
