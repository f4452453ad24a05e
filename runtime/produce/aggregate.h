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

/* The fields a plain ENTER or EXIT touches come first: 64 bytes.  The
 * Application Inclusive value is the Elapsed one less its transitional part
 * (tr_incl), which only the slow path adds to; the Exclusive values are
 * the Inclusive ones less the children's (aggregate_write.c). */
struct agg_node {
  /* the two children made or found last, the latest first (most calls
   * repeat one of them): gids (IP_STACK_NO_KEY: none) and paths */
  uint32_t hot_gid[2], hot_child[2];
  uint32_t parent; /* index of the parent path, NO_NODE for an outermost frame */
  /* The histogram of its per-call Elapsed Inclusive ns: lat[i] counts
   * bucket lat_lo + i, for lat_n buckets (whole rows of IP_LAT_SUB). */
  uint16_t lat_lo, lat_n;
  uint64_t calls, el_incl, min_call, max_call; /* of its calls closed */
  uint32_t *lat;
  uint32_t gid;
  uint64_t tr_incl, smp_incl, smp_excl;
  uint64_t wait_incl[AGG_WAIT_N], wait_excl[AGG_WAIT_N];
};

struct agg_frame {
  ip_open_frame open; /* the stack rules' part: its key is the gid */
  uint32_t node;
  uint64_t push_el; /* the thread's Elapsed timeline at the push */
  /* its transitional part, samples and wait timeline at the push: filled
   * only once they move on from push_seq (most frames close before they
   * do) */
  uint64_t push_seq;
  uint64_t push_tr, push_smp;
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
  uint64_t fault;                /* most one page fault takes (ticks << IP_FX), 0 unknown */
  uint64_t ptr_call;             /* a pointer call's hooks that record no event (ticks << IP_FX) */
  uint64_t ptr_pending;          /* such calls whose cost the next probe's interval holds */
  ip_probe_owed owed;            /* probe cost carried over (ip_probe_compensated_carry) */
  uint64_t off_cpu_floor;        /* IP_OFF_CPU_FLOOR_NS in ticks */
  uint64_t ns_per_tick_fx;       /* ns per tick << 32, for the histograms */
  uint64_t start_tick, hwm;
  uint64_t el, tr, smp; /* the thread's timeline: compensated ticks << IP_FX (in all, and
                           in transitional intervals: Application is el - tr), samples */
  uint64_t pending_gap; /* the runtime's stop, taken from the next interval */
  uint64_t events, gaps, gap_ticks, popped, closed_at_end, unmatched, unwound, samples_outside;
  uint64_t forked; /* exits of frames a fork child's parent opened (the stack's began_inside) */
  /* kevents mode: the wait breakdown, from the records a buffer carries */
  int kernel_events, kacc_known; /* the records of the buffer being folded are known */
  ip_kacc kacc;
  uint64_t wait[AGG_WAIT_N]; /* the thread's timeline of it */
  uint64_t wait_seq;         /* how many times that timeline, tr or the samples moved */
  uint64_t kernel_lost;      /* buffers and intervals whose records were lost */
  /* non-transitional intervals ending at a probe: the probe cost taken from
   * them, their count, those in runs left with under 5 ns each (dense:
   * ticks << IP_FX), and the run going on (interval_rules.h) */
  uint64_t probe_removed, app_intervals, dense_intervals, dense;
  ip_dense_run dense_run;
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

/* The transitional timeline, the samples or the wait timeline have moved
 * since frame fr was pushed (its push_tr, push_smp and push_wait are then
 * filled). */
static inline int ip_agg_waited(const struct ip_agg *a, const struct agg_frame *fr) {
  return fr->push_seq != a->wait_seq;
}

/* The samples of the thread when frame fr was pushed. */
static inline uint64_t ip_agg_push_smp(const struct ip_agg *a, const struct agg_frame *fr) {
  return ip_agg_waited(a, fr) ? fr->push_smp : a->smp;
}

/* The thread's transitional timeline when frame fr was pushed. */
static inline uint64_t ip_agg_push_tr(const struct ip_agg *a, const struct agg_frame *fr) {
  return ip_agg_waited(a, fr) ? fr->push_tr : a->tr;
}

/* Ticks << IP_FX in ns, rounded as the converter rounds them, at ns_fx ns
 * per tick << 32. */
static inline uint64_t ip_fx_ns(uint64_t v, uint64_t ns_fx) {
  return (uint64_t)(((unsigned __int128)v * ns_fx + ((unsigned __int128)1 << (IP_FX + 31))) >>
                    (IP_FX + 32));
}

static inline uint64_t ip_agg_fx_ns(const struct ip_agg *a, uint64_t v) {
  return ip_fx_ns(v, a->ns_per_tick_fx);
}

/* The thread ends (or the process, alive_until_now: after one more
 * interval up to now, transitional or not): its open frames close, counted
 * as closed at its end. */
void ip_agg_close_all(struct ip_agg *a, int alive_until_now, uint64_t now, int transitional);
/* The time from a's last event to upto (ticks << IP_FX, the runtime's off
 * periods left out): 0 while its recording is paused or upto is older. */
uint64_t ip_agg_open_time(const struct ip_agg *a, uint64_t upto);

#endif
