/* produce/aggregate.h - the aggregate mode's call-path tree of a thread,
 * shared by the fold (produce/aggregate.c) and the ThreadProfile writer
 * (produce/aggregate_write.c); see "Aggregate mode" in docs/runtime.md. */
#ifndef INCLPROF_PRODUCE_AGGREGATE_H
#define INCLPROF_PRODUCE_AGGREGATE_H

#include "interval_rules.h"
#include "latency_buckets.h"
#include "produce/produce.h"
#include "stack_rules.h"

#define NO_NODE UINT32_MAX

/* The wait breakdown (kevents mode), in the converter's order: off-CPU
 * preempted, off-CPU blocked, system calls, page faults (ticks << IP_FX), and
 * the page faults' count. */
enum { AGG_PREEMPTED, AGG_BLOCKED, AGG_SYSCALL, AGG_FAULT, AGG_FAULTS, AGG_WAIT_N };
_Static_assert(AGG_WAIT_N == 5, "ThreadProfile.wait_inclusive: five entries per path");

struct agg_node {
  uint32_t gid, parent; /* parent: index of the parent path, NO_NODE for an outermost frame */
  uint64_t calls, el_incl, el_excl, app_incl, app_excl, min_call, max_call, smp_incl, smp_excl;
  uint64_t wait_incl[AGG_WAIT_N], wait_excl[AGG_WAIT_N];
  /* The histogram of its per-call Elapsed Inclusive ns: rows lat_lo to
   * lat_lo + lat_n - 1 of IP_LAT_SUB buckets each (rows[0] is row lat_lo). */
  uint32_t (*rows)[IP_LAT_SUB];
  uint8_t lat_lo, lat_n;
  uint32_t hot_gid, hot_child; /* the child made or found last: most calls repeat it */
};

struct agg_frame {
  ip_open_frame open; /* the stack rules' part: its key is the gid */
  uint32_t node;
  uint64_t push_el, push_app, push_smp; /* the thread's timeline at the push */
  /* the wait timeline at the push: push_wait is filled only once the
   * timeline moves on from push_seq (most frames close before it does) */
  uint64_t push_seq;
  uint64_t push_wait[AGG_WAIT_N];
};

/* A cache of gids by event arg without bit 0 (ENTER and EXIT, CALL and RET
 * share an entry), emptied for every buffer: an unloaded unit's pointer may
 * name another function in the next. */
enum { GID_CACHE = 256 };
#define GID_SLOT(key) ((size_t)(((key)*0x9e3779b97f4a7c15ull) >> 56))

struct ip_agg {
  struct agg_node *nodes;
  size_t n_nodes, cap_nodes;
  uint64_t *child_key; /* open addressing: (parent + 1) << 32 | gid -> child_val */
  uint32_t *child_val;
  size_t child_cap; /* a power of two, at most half full */
  ip_stack stk;     /* frames: struct agg_frame */
  uint32_t cur;     /* the top frame's path, NO_NODE when none (or out of memory) */
  int have_tick, broken, written;
  uint64_t cost, hidden, kevent; /* the compensation (ticks << IP_FX), from the Header's values */
  ip_probe_owed owed;            /* probe cost carried over (ip_probe_compensated_carry) */
  uint64_t off_cpu_floor;        /* IP_OFF_CPU_FLOOR_NS in ticks */
  uint64_t ns_per_tick_fx;       /* ns per tick << 32, for the histograms */
  uint64_t start_tick, hwm;
  uint64_t el, app, smp; /* the thread's timeline: compensated ticks << IP_FX, samples */
  uint64_t pending_gap;  /* the runtime's stop, taken from the next interval */
  uint64_t events, gaps, gap_ticks, popped, closed_at_end, unmatched, unwound, samples_outside;
  /* kevents mode: the wait breakdown, from the records a buffer carries */
  int kernel_events, kacc_known; /* the records of the buffer being folded are known */
  ip_kacc kacc;
  uint64_t wait[AGG_WAIT_N]; /* the thread's timeline of it */
  uint64_t wait_seq;         /* how many times that timeline moved */
  uint64_t kernel_lost;      /* buffers and intervals whose records were lost */
  /* non-transitional intervals ending at a probe: the probe cost taken from
   * them, their count, those left with under 5 ns (dense: ticks << IP_FX) */
  uint64_t probe_removed, app_intervals, dense_intervals, dense;
  /* samples by the address they interrupted: open addressing on (pc, path) */
  struct agg_pc {
    uint64_t pc; /* 0: an empty slot */
    uint32_t node, count;
  } * pcs;
  size_t n_pcs, cap_pcs;    /* cap_pcs a power of two, at most half full */
  const struct ip_kev *kev; /* the buffer's records, while it is folded: kev_i of kev_n taken */
  size_t kev_i, kev_n;
  uint64_t kev_tick; /* the last one's tick (kept from going back, as a batch's are) */
  uint64_t gid_key[GID_CACHE];
  uint32_t gid_val[GID_CACHE];
  struct agg_prev *prev; /* --interval: the tree as the last interval's file had it */
};

struct agg_prev;

static inline struct agg_frame *ip_agg_frame(const struct ip_agg *a, size_t i) {
  return (struct agg_frame *)a->stk.frames + i;
}

/* The wait timeline has moved since frame fr was pushed (its push_wait is
 * then filled). */
static inline int ip_agg_waited(const struct ip_agg *a, const struct agg_frame *fr) {
  return fr->push_seq != a->wait_seq;
}

/* Ticks << IP_FX in ns, rounded as the converter rounds them. */
static inline uint64_t ip_agg_fx_ns(const struct ip_agg *a, uint64_t v) {
  return (uint64_t)(((unsigned __int128)v * a->ns_per_tick_fx +
                     ((unsigned __int128)1 << (IP_FX + 31))) >>
                    (IP_FX + 32));
}

/* The thread ends (or the process, alive_until_now: after one more
 * interval up to now, transitional or not): its open frames close, counted
 * as closed at its end. */
void ip_agg_close_all(struct ip_agg *a, int alive_until_now, uint64_t now, int transitional);

#endif
