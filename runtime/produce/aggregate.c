/* aggregate.c - INCLPROF_MODE=aggregate: instead of being encoded into the
 * trace, each full buffer of a thread is folded, on that thread, into the
 * thread's call-path tree (per path: calls, Elapsed and Application
 * Inclusive and Exclusive, per-call minimum and maximum, samples, and a
 * histogram of the per-call times), by the rules the converter replays a
 * trace with (the stack rules of include/inclprof/stack_rules.h, the same
 * compensation of the probe's cost, the kevents record's cost and the
 * runtime's own stops), so the values are the trace's.  The probes are the
 * trace mode's: nothing is added to the hot path; the tree's memory comes
 * from the runtime's arena while a buffer is folded.  The tree is written as
 * one ThreadProfile record (produce/aggregate_write.c).  See "Aggregate
 * mode" in docs/runtime.md. */
#include <string.h>

#include "latency_buckets.h"
#include "produce/aggregate.h"

/* The compensation, as the converter computes it from the Header. */
static uint64_t fx_of(double ticks) {
  return ticks > 0 && ticks < 1e9 ? (uint64_t)(ticks * (1 << IP_FX) + 0.5) : 0;
}

static void *grow(void *p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return p;
  size_t n = *cap ? *cap * 2 : 64;
  while (n < need)
    n *= 2;
  void *q = ip_realloc(p, n * size);
  if (q)
    *cap = n;
  return q;
}

static struct ip_agg *agg_of(struct ip_rt_thread *t) {
  if (!t->agg) {
    t->agg = ip_alloc(sizeof *t->agg);
    if (t->agg) {
      struct ip_agg *a = t->agg;
      ip_stack_init(&a->stk, NULL, sizeof(struct agg_frame), 0);
      a->stk.began_inside = (uint8_t)ip_began_inside(t->tid);
      a->cur = NO_NODE;
      a->cost = fx_of(ip_st.probe_cost_ticks);
      double h = ip_st.probe_hidden_ticks;
      a->hidden = a->cost && h <= ip_st.probe_cost_ticks ? fx_of(h) : 0;
      a->kevent = fx_of(ip_st.kevent_cost_ticks);
      a->fault = fx_of(ip_st.fault_cost_ticks);
      a->ptr_call = a->cost ? fx_of(ip_st.ptr_call_cost_ticks) : 0;
      a->off_cpu_floor = (uint64_t)(IP_OFF_CPU_FLOOR_NS / (1e9 / ip_st.ticks_per_second) + 0.5);
      a->kernel_events = ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS;
      a->ns_per_tick_fx = (uint64_t)(1e9 / ip_st.ticks_per_second * 4294967296.0 + 0.5);
      a->dense =
          (uint64_t)(5.0 / (1e9 / ip_st.ticks_per_second) * (1 << IP_FX) + 0.5); /* as read */
    }
  }
  return t->agg;
}

static uint64_t child_hash(uint64_t key, size_t cap) {
  return (key * 0x9e3779b97f4a7c15ull) >> 17 & (cap - 1);
}

static int child_table_grow(struct ip_agg *a) {
  size_t cap = a->child_cap ? a->child_cap * 2 : 256;
  uint64_t *keys = ip_alloc(cap * sizeof *keys);
  uint32_t *vals = ip_alloc(cap * sizeof *vals);
  if (!keys || !vals) {
    ip_free(keys);
    ip_free(vals);
    return -1;
  }
  for (size_t i = 0; i < a->child_cap; i++)
    if (a->child_key[i]) {
      size_t h = child_hash(a->child_key[i], cap);
      while (keys[h])
        h = (h + 1) & (cap - 1);
      keys[h] = a->child_key[i];
      vals[h] = a->child_val[i];
    }
  ip_free(a->child_key);
  ip_free(a->child_val);
  a->child_key = keys;
  a->child_val = vals;
  a->child_cap = cap;
  return 0;
}

/* The path of gid under parent (NO_NODE: outermost), made when new;
 * NO_NODE when no memory is left. */
static __attribute__((noinline)) uint32_t child_lookup(struct ip_agg *a, uint32_t parent,
                                                       uint32_t gid) {
  uint64_t key = (uint64_t)(parent + 1u) << 32 | gid; /* never 0: gid 0 names nothing */
  if (a->child_cap) {
    for (size_t h = child_hash(key, a->child_cap); a->child_key[h];
         h = (h + 1) & (a->child_cap - 1))
      if (a->child_key[h] == key)
        return a->child_val[h];
  }
  if ((a->n_nodes + 1) * 2 > a->child_cap && child_table_grow(a) != 0)
    return NO_NODE;
  struct agg_node *nodes = grow(a->nodes, &a->cap_nodes, a->n_nodes + 1, sizeof *nodes);
  if (!nodes)
    return NO_NODE;
  a->nodes = nodes;
  uint32_t n = (uint32_t)a->n_nodes++;
  memset(&nodes[n], 0, sizeof nodes[n]);
  nodes[n].gid = gid;
  nodes[n].parent = parent;
  nodes[n].min_call = UINT64_MAX;
  nodes[n].hot_gid[0] = nodes[n].hot_gid[1] = IP_STACK_NO_KEY;
  size_t h = child_hash(key, a->child_cap);
  while (a->child_key[h])
    h = (h + 1) & (a->child_cap - 1);
  a->child_key[h] = key;
  a->child_val[h] = n;
  return n;
}

/* child_lookup for a parent's child that is neither of its last two,
 * which it then becomes the latest of. */
static __attribute__((noinline)) uint32_t child_cold(struct ip_agg *restrict a, uint32_t parent,
                                                     uint32_t gid) {
  uint32_t n = child_lookup(a, parent, gid);
  if (parent != NO_NODE && n != NO_NODE) {
    struct agg_node *p = &a->nodes[parent];
    p->hot_gid[1] = p->hot_gid[0], p->hot_child[1] = p->hot_child[0];
    p->hot_gid[0] = gid, p->hot_child[0] = n;
  }
  return n;
}

/* child_lookup, the parent's last two answers first. */
static inline uint32_t child_node(struct ip_agg *restrict a, uint32_t parent, uint32_t gid) {
  if (parent != NO_NODE) {
    const struct agg_node *p = &a->nodes[parent];
    if (p->hot_gid[0] == gid)
      return p->hot_child[0];
    if (p->hot_gid[1] == gid)
      return p->hot_child[1];
  }
  return child_cold(a, parent, gid);
}

/* Room in nd's histogram for bucket b (its rows then span b's); 0 when no
 * memory is left. */
static __attribute__((noinline)) int lat_rows_span(struct agg_node *nd, uint32_t b) {
  unsigned row = b / IP_LAT_SUB, had = nd->lat_n / IP_LAT_SUB, was = nd->lat_lo / IP_LAT_SUB;
  unsigned lo = had ? was : row, hi = had ? was + had - 1u : row;
  if (row < lo)
    lo = row;
  if (row > hi)
    hi = row;
  unsigned n = hi - lo + 1, shift = had ? was - lo : 0;
  uint32_t(*rows)[IP_LAT_SUB] = ip_realloc(nd->lat, n * sizeof *rows);
  if (!rows)
    return 0;
  memmove(&rows[shift], &rows[0], had * sizeof *rows);
  memset(&rows[0], 0, shift * sizeof *rows);
  memset(&rows[shift + had], 0, (n - shift - had) * sizeof *rows);
  nd->lat = &rows[0][0];
  nd->lat_lo = (uint16_t)(lo * IP_LAT_SUB);
  nd->lat_n = (uint16_t)(n * IP_LAT_SUB);
  return 1;
}

/* One more call of node in bucket b of its histogram. */
static inline void lat_add(struct agg_node *nd, uint32_t b) {
  if (IP_UNLIKELY(b - nd->lat_lo >= nd->lat_n) && !lat_rows_span(nd, b))
    return; /* the histogram misses the call; calls and times keep it */
  nd->lat[b - nd->lat_lo]++;
}

/* The transitional timeline, the samples or the wait timeline move on:
 * the frames pushed since they last moved take where they were. */
static void timeline_moves(struct ip_agg *restrict a) {
  for (size_t i = a->stk.depth; i-- > 0 && !ip_agg_waited(a, ip_agg_frame(a, i));) {
    struct agg_frame *fr = ip_agg_frame(a, i);
    fr->push_tr = a->tr;
    fr->push_smp = a->smp;
    memcpy(fr->push_wait, a->wait, sizeof a->wait);
  }
  a->wait_seq++;
}

/* The transitional time, samples and wait breakdown of frame fr, closing
 * in node nd, when they moved since its push. */
static void closed_moved(const struct ip_agg *restrict a, struct agg_node *nd,
                         const struct agg_frame *fr) {
  nd->tr_incl += a->tr - fr->push_tr;
  nd->smp_incl += a->smp - fr->push_smp;
  for (int k = 0; k < AGG_WAIT_N; k++)
    nd->wait_incl[k] += a->wait[k] - fr->push_wait[k];
}

/* The frame at depth i closes: its inclusive values. */
static inline void closed(struct ip_agg *restrict a, size_t i) {
  const struct agg_frame *fr = ip_agg_frame(a, i);
  if (fr->node == NO_NODE)
    return;
  struct agg_node *nd = &a->nodes[fr->node];
  uint64_t el = a->el - fr->push_el;
  nd->calls++;
  nd->el_incl += el;
  if (el < nd->min_call)
    nd->min_call = el;
  if (el > nd->max_call)
    nd->max_call = el;
  lat_add(nd, ip_lat_bucket(ip_agg_fx_ns(a, el)));
  if (ip_agg_waited(a, fr))
    closed_moved(a, nd, fr);
}

static inline void opened(struct ip_agg *restrict a) {
  size_t depth = a->stk.depth;
  struct agg_frame *fr = ip_agg_frame(a, depth - 1);
  uint32_t parent = depth > 1 ? ip_agg_frame(a, depth - 2)->node : NO_NODE;
  fr->node = depth > 1 && parent == NO_NODE ? NO_NODE : child_node(a, parent, fr->open.key);
  fr->push_el = a->el;
  fr->push_seq = a->wait_seq;
  a->cur = fr->node;
  if (fr->node == NO_NODE)
    a->broken = 1;
}

/* The top frame's path after frames closed. */
static void top_again(struct ip_agg *restrict a) {
  a->cur = a->stk.depth ? ip_agg_frame(a, a->stk.depth - 1)->node : NO_NODE;
}

static struct agg_node *top(const struct ip_agg *a) {
  return a->cur == NO_NODE ? NULL : &a->nodes[a->cur];
}

/* ---- the wait breakdown (kevents mode), as the converter splits it ------ */

/* The next record's tick, kept from going back (as a batch's are). */
static uint64_t next_kev_tick(const struct ip_agg *a) {
  uint64_t t = a->kev[a->kev_i].tick;
  return t > a->kev_tick ? t : a->kev_tick;
}

/* Takes the buffer's records at or before tick into the accumulator. */
static void kernel_upto(struct ip_agg *a, uint64_t tick) {
  while (a->kev_i < a->kev_n) {
    uint64_t t = next_kev_tick(a);
    if (t > tick)
      break;
    uint32_t kind = a->kev[a->kev_i++].kind;
    a->kev_tick = t;
    ip_kacc_record(&a->kacc, kind, t);
  }
}

static uint64_t scale(uint64_t x, uint64_t num, uint64_t den) {
  return (uint64_t)((unsigned __int128)x * num / den);
}

/* The wait breakdown of an interval of x (ticks << IP_FX): split it when it is
 * transitional and its records are known; the accumulator starts anew. */
static void interval_wait(struct ip_agg *restrict a, uint64_t x, int split) {
  ip_kacc *k = &a->kacc;
  if (k->lost) { /* its records are missing: in no column */
    a->kernel_lost++;
    split = k->lost = 0;
  }
  if (split) {
    uint64_t w[AGG_WAIT_N] = {0};
    uint64_t pre = k->off[0] << IP_FX, blk = k->off[1] << IP_FX;
    unsigned __int128 tot = (unsigned __int128)pre + blk;
    if (tot > x) { /* never more than the interval */
      pre = (uint64_t)((unsigned __int128)x * pre / tot);
      blk = x - pre;
    }
    uint64_t rest = x - pre - blk;
    if (a->fault && (k->sys + k->pf)) { /* the faults take at most their calibrated time */
      unsigned __int128 most = (unsigned __int128)k->pf * a->fault;
      w[AGG_FAULT] = most < rest ? (uint64_t)most : rest;
      w[AGG_SYSCALL] = k->sys ? rest - w[AGG_FAULT] : 0;
    } else if (k->sys + k->pf) {
      w[AGG_FAULT] = scale(rest, k->pf, k->sys + k->pf);
      w[AGG_SYSCALL] = rest - w[AGG_FAULT];
    }
    w[AGG_PREEMPTED] = pre;
    w[AGG_BLOCKED] = blk;
    w[AGG_FAULTS] = k->pf; /* (the open frames took the timeline: interval moved it) */
    struct agg_node *nd = top(a);
    for (int j = 0; j < AGG_WAIT_N; j++) {
      a->wait[j] += w[j];
      if (nd)
        nd->wait_excl[j] += w[j];
    }
  }
  k->off[0] = k->off[1] = k->sys = k->pf = 0;
}

/* One interval of raw ticks ending at an event (a probe's, or a sample's:
 * probe 0), as the converter attributes it. */
static inline void interval(struct ip_agg *restrict a, uint64_t raw, int transitional, int probe) {
  if (IP_UNLIKELY(raw > UINT64_MAX >> (IP_FX + 1)))
    raw = 0;
  if (IP_UNLIKELY(a->pending_gap)) {
    uint64_t g = a->pending_gap < raw ? a->pending_gap : raw;
    a->gap_ticks += g;
    a->pending_gap = 0;
    raw -= g;
  }
  uint64_t x = raw << IP_FX;
  if (transitional) /* the kernel's kevents record for it */
    x = x > a->kevent ? x - a->kevent : 0;
  if (probe) {
    uint64_t c = a->cost + a->ptr_pending * a->ptr_call; /* pointer calls' hooks ran in it */
    a->ptr_pending = 0;
    uint64_t y = ip_probe_compensated_carry(x, c, a->hidden, (uint32_t)a->stk.depth, &a->owed,
                                            ip_kacc_off_fx(&a->kacc));
    if (!transitional) {
      a->probe_removed += x - y;
      a->app_intervals++;
      a->dense_run.extra += c - a->cost;
      a->dense_intervals += ip_dense_run_add(&a->dense_run, x, 1, a->cost, a->hidden, a->dense);
    }
    x = y;
  } else if (!transitional) {
    ip_dense_run_add(&a->dense_run, x, 0, a->cost, a->hidden, a->dense);
  }
  if (transitional) /* the frames open take the transitional time so far first */
    timeline_moves(a);
  a->el += x;
  if (transitional)
    a->tr += x;
  if (a->kernel_events)
    interval_wait(a, x, transitional && a->kacc_known);
}

/* The frames the stack rules closed, innermost first; those above the last
 * were skipped by an exit (longjmp, an exception). */
static void closed_down(struct ip_agg *restrict a, size_t was) {
  size_t target = a->stk.depth;
  for (size_t i = was - 1; i > target; i--) {
    const struct agg_frame *fr = ip_agg_frame(a, i);
    if (fr->open.from_call && !fr->open.merged)
      a->unwound++;
    else
      a->popped++;
    closed(a, i);
  }
  closed(a, target);
  top_again(a);
}

/* The frames a landing closed (ip_stack_land), innermost first: all
 * skipped by a longjmp. */
static void closed_landed(struct ip_agg *restrict a, size_t was) {
  for (size_t i = was; i-- > a->stk.depth;) {
    const struct agg_frame *fr = ip_agg_frame(a, i);
    if (fr->open.from_call && !fr->open.merged)
      a->unwound++;
    else
      a->popped++;
    closed(a, i);
  }
  top_again(a);
}

static __attribute__((noinline)) uint32_t gid_miss(struct ip_agg *restrict a, uint64_t arg,
                                                   uint64_t tick, int in_signal) {
  uint64_t key = arg & ~1ull;
  size_t s = GID_SLOT(key);
  int fixed = 1;
  unsigned kind = (unsigned)(arg & 7);
  uint32_t gid = kind <= IP_K_RET
                     ? ip_gid_of_desc((const struct inclprof_fn *)(uintptr_t)(arg & ~7ull), tick,
                                      in_signal, &fixed)
                     : ip_gid_of_addr((uintptr_t)(arg >> 3), tick, in_signal, &fixed);
  if (fixed) {
    a->gid_key[s] = key;
    a->gid_val[s] = gid;
  }
  return gid;
}

static inline uint32_t gid_of(struct ip_agg *restrict a, uint64_t arg, uint64_t tick,
                              int in_signal) {
  uint64_t key = arg & ~1ull;
  size_t s = GID_SLOT(key);
  return a->gid_key[s] == key ? a->gid_val[s] : gid_miss(a, arg, tick, in_signal);
}

/* One more sample at pc in path node (samples are rare: a slow path). */
static void pc_sample(struct ip_agg *a, uint64_t pc, uint32_t node) {
  if ((a->n_pcs + 1) * 2 > a->cap_pcs) {
    size_t cap = a->cap_pcs ? a->cap_pcs * 2 : 64;
    struct agg_pc *t = ip_alloc(cap * sizeof *t);
    if (!t)
      return; /* the sample counts, its address is not kept */
    for (size_t i = 0; i < a->cap_pcs; i++)
      if (a->pcs[i].pc) {
        uint64_t k = a->pcs[i].pc * 0x9e3779b97f4a7c15ull ^ a->pcs[i].node;
        size_t h = (size_t)(k >> 20) & (cap - 1);
        while (t[h].pc)
          h = (h + 1) & (cap - 1);
        t[h] = a->pcs[i];
      }
    ip_free(a->pcs);
    a->pcs = t;
    a->cap_pcs = cap;
  }
  uint64_t key = pc * 0x9e3779b97f4a7c15ull ^ node;
  size_t h = (size_t)(key >> 20) & (a->cap_pcs - 1);
  while (a->pcs[h].pc && !(a->pcs[h].pc == pc && a->pcs[h].node == node))
    h = (h + 1) & (a->cap_pcs - 1);
  if (!a->pcs[h].pc) {
    a->pcs[h] = (struct agg_pc){pc, node, 0};
    a->n_pcs++;
  }
  a->pcs[h].count++;
}

/* One event after its interval: the stack rules, then what they opened or
 * closed. */
static void event_slow(struct ip_agg *restrict a, uint64_t arg, uint64_t tick, int in_signal) {
  unsigned kind = (unsigned)(arg & 7);
  uint32_t ev_kind, key = IP_STACK_NO_KEY;
  switch (kind) {
  case IP_K_SAMPLE:
    if (a->stk.paused || (arg >> 3 & 1))
      return; /* a sample in the runtime's own code: counted by the Trailer */
    if (!top(a)) {
      a->samples_outside += !a->stk.depth;
      return;
    }
    timeline_moves(a);
    a->smp++;
    top(a)->smp_excl++;
    if (arg >> 4)
      pc_sample(a, arg >> 4, a->cur);
    return;
  case IP_K_CONTROL:
    if (ip_landing_desc(arg)) {
      size_t was = a->stk.depth;
      /* the descriptor as an ENTER's arg (kind 0) finds its gid */
      uint64_t desc = (uint64_t)(uintptr_t)ip_landing_desc(arg);
      if (ip_stack_land(&a->stk, gid_of(a, desc, tick, in_signal)) == IP_STACK_LANDED)
        closed_landed(a, was);
      return;
    }
    (void)ip_stack_event(&a->stk, (uint32_t)(arg >> 3) & 7, IP_STACK_NO_KEY);
    return;
  case IP_K_CALL_IND:
    ev_kind = INCLPROF__EVENT_KIND__EV_CALL;
    break;
  case IP_K_RET_IND:
    ev_kind = INCLPROF__EVENT_KIND__EV_RET;
    break;
  default:
    ev_kind = kind; /* ENTER, EXIT, CALL, RET are the file's kinds */
    break;
  }
  key = gid_of(a, arg, tick, in_signal);
  size_t was = a->stk.depth;
  if (was == a->stk.cap) {
    void *frames = grow(a->stk.frames, &a->stk.cap, was + 1, sizeof(struct agg_frame));
    if (frames)
      a->stk.frames = frames;
  }
  switch (ip_stack_event(&a->stk, ev_kind, key)) {
  case IP_STACK_PUSHED:
    opened(a);
    break;
  case IP_STACK_POPPED:
    closed_down(a, was);
    break;
  case IP_STACK_UNMATCHED: /* as the converter counts them */
    if (!a->stk.depth && a->stk.began_inside)
      a->forked++;
    else
      a->unmatched++;
    break;
  case IP_STACK_FULL:
    a->broken = 1;
    break;
  default:
    break;
  }
  top_again(a);
}

/* One event after its interval.  The two that make most of a buffer go
 * straight: an ENTER that joins no call site's frame opens a frame, an EXIT
 * of the top frame (not a joined one) closes it - what the stack rules do
 * in those cases; every other event goes through the rules. */
static inline void event(struct ip_agg *restrict a, uint64_t arg, uint64_t tick, int in_signal) {
  unsigned kind = (unsigned)(arg & 7);
  ip_stack *s = &a->stk;
  if (kind == IP_K_ENTER && !s->call_open && s->depth < s->cap) {
    ip_open_frame *fr = ip_stack_at(s, s->depth++);
    fr->key = gid_of(a, arg, tick, in_signal);
    fr->from_call = fr->merged = 0;
    s->expect_ret = IP_STACK_NO_KEY;
    opened(a);
    return;
  }
  if (kind == IP_K_EXIT && s->depth) {
    const ip_open_frame *fr = ip_stack_at(s, s->depth - 1);
    if (fr->key == gid_of(a, arg, tick, in_signal) && !fr->merged) {
      s->depth--;
      s->call_open = 0;
      s->expect_ret = IP_STACK_NO_KEY;
      closed(a, s->depth);
      top_again(a);
      return;
    }
  }
  event_slow(a, arg, tick, in_signal);
}

/* The ticks of [from, to) during which recording was off. */
static uint64_t off_ticks(uint64_t from, uint64_t to) {
  uint64_t sum = 0;
  unsigned n = atomic_load(&ip_st.n_off_periods);
  for (unsigned i = 0; i < n && ip_st.off_periods[i].off < to; i++) {
    uint64_t on = __atomic_load_n(&ip_st.off_periods[i].on, __ATOMIC_ACQUIRE);
    uint64_t a = ip_st.off_periods[i].off > from ? ip_st.off_periods[i].off : from;
    uint64_t b = on < to ? on : to;
    if (b > a)
      sum += b - a;
  }
  return sum;
}

/* One event, every case: its interval, then the stack rules. */
static __attribute__((noinline)) void fold_event(struct ip_agg *restrict a, uint64_t tick_t,
                                                 uint64_t arg, int in_signal) {
  if (IP_UNLIKELY(ip_is_ptr_call(arg))) { /* no event: its cost is the next interval's */
    a->ptr_pending += !a->stk.paused;
    return;
  }
  uint64_t tick = tick_t & ~IP_T_BIT;
  if (!a->have_tick) { /* the thread's first event: no interval before it */
    a->have_tick = 1;
    a->start_tick = a->hwm = tick;
    if (a->kernel_events) {
      kernel_upto(a, tick);
      memset(&a->kacc, 0, sizeof a->kacc);
    }
  } else {
    uint64_t raw = 0;
    if (tick > a->hwm) { /* a signal handler's event may be older: no time */
      raw = tick - a->hwm;
      if (IP_UNLIKELY(atomic_load(&ip_st.n_off_periods)))
        raw -= off_ticks(a->hwm, tick);
      a->hwm = tick;
    }
    if (a->kernel_events) { /* at the event's tick as a batch has it: never older */
      kernel_upto(a, a->hwm);
      ip_kacc_at_event(&a->kacc, a->hwm);
    }
    if (a->stk.paused) {
      a->pending_gap = a->ptr_pending = 0;
      a->kacc.off[0] = a->kacc.off[1] = a->kacc.sys = a->kacc.pf = 0;
    } else {
      int transitional = (tick_t & IP_T_BIT) != 0;
      if (!transitional && a->kernel_events &&
          ip_kacc_off_cpu_inside(&a->kacc, raw, a->off_cpu_floor))
        transitional = 1;
      interval(a, raw, transitional, (arg & 7) != IP_K_SAMPLE);
    }
  }
  event(a, arg, tick, in_signal);
}

/* Whether an ENTER or EXIT may go straight (only fold_event changes it):
 * no pause, stop of the runtime, call site's frame awaiting its callee,
 * time with recording off to take out, or kernel records taken for the
 * next interval (those after the last buffer's last event). */
static int plain_now(const struct ip_agg *restrict a) {
  return a->have_tick && !a->stk.paused && !a->pending_gap && !a->ptr_pending &&
         !a->stk.call_open && !atomic_load(&ip_st.n_off_periods) &&
         !(a->kernel_events && !ip_kacc_empty(&a->kacc));
}

/* How far past tick hwm (the fold's, which a->hwm may lag) an event may go
 * straight (ip_agg_fold): 0 when none may (plain_now); never to the next
 * kernel record (that interval is split by it), nor to an event with the
 * transition bit (the bit is above every tick), nor an interval too long
 * for its fractional bits (the slow path gives it no time). */
static uint64_t straight_room(const struct ip_agg *restrict a, uint64_t hwm) {
  if (!plain_now(a))
    return 0;
  uint64_t next = a->kev_i < a->kev_n ? next_kev_tick(a) : UINT64_MAX;
  uint64_t longest = a->hwm + (UINT64_MAX >> (IP_FX + 1)); /* hwm < IP_T_BIT */
  next = next < longest ? next : longest;
  next = next < IP_T_BIT ? next : IP_T_BIT;
  return next > hwm ? next - hwm : 0;
}

/* Straight events take no part in the dense run (interval_rules.h's
 * ip_dense_run) one by one: the ones before e since the last one it took
 * (whose tick was from) are taken at once, where the run's last interval is
 * e (last) or where they end.  Their ticks add up to the distance. */
static inline void dense_straight(struct ip_agg *restrict a, const struct ip_event *e,
                                  const struct ip_event *last, uint64_t from, uint64_t to) {
  a->dense_run.x += (to - from) << IP_FX;
  a->dense_run.n = IP_DENSE_RUN - 1 - (uint32_t)(last - e);
}

/* The probe cost taken out of the run of straight events that ends, their
 * count and the stack rules' expected RET: the intervals' ticks are the
 * run's (tick - hwm each), so what was taken out is the run's ticks less
 * what its timeline grew. */
static void run_ends(struct ip_agg *restrict a, uint64_t ticks, uint64_t grew, uint64_t n) {
  if (n) {
    a->probe_removed += (ticks << IP_FX) - grew;
    a->app_intervals += n;
    a->stk.expect_ret = IP_STACK_NO_KEY;
  }
}

/* One past the top frame of s, and one past its room (both NULL before it has any). */
static inline void frames_at(const ip_stack *s, struct agg_frame **sp, struct agg_frame **lim) {
  struct agg_frame *frames = s->frames;
  *sp = frames ? frames + s->depth : NULL;
  *lim = frames ? frames + s->cap : NULL;
}

/* The loop keeps the thread's timeline, its top path, its depth and its
 * frames in locals (the compiler cannot keep them in registers across the
 * stores to the paths' values otherwise) and takes the two events that
 * make most of a buffer - an ENTER that joins no call site's frame, the
 * EXIT of the top frame, each after a non-transitional interval that no
 * kernel record falls in - straight, as fold_event would, in runs
 * (run_ends); every other case goes through fold_event with the locals
 * written back. */
void ip_agg_fold(struct ip_rt_thread *t, struct ip_event *restrict ev, size_t n,
                 const struct ip_kev_list *kl, int in_signal) {
  struct ip_agg *restrict a = agg_of(t);
  uint64_t folded = 0;
  if (!a) {
    for (size_t i = 0; i < n; i++)
      if (ev[i].arg) {
        ev[i].arg = 0;
        folded++;
      }
    atomic_fetch_add(&ip_st.dropped, folded);
    return;
  }
  memset(a->gid_key, 0xff, sizeof a->gid_key); /* every entry empty */
  if (a->kernel_events) { /* a buffer that lost its records leaves its intervals unsplit */
    a->kacc_known = !kl->lost;
    if (kl->lost) {
      a->kernel_lost++;
      memset(&a->kacc, 0, sizeof a->kacc);
    }
    a->kev = kl->lost ? NULL : kl->kev;
    a->kev_n = kl->lost ? 0 : kl->n;
    a->kev_i = 0;
    a->kev_tick = a->kev_n ? a->kev[0].tick : 0;
  }
  const uint64_t cost = a->cost, hidden = a->hidden, dense_at = a->dense;
  const uint64_t ns_fx = a->ns_per_tick_fx;
  uint64_t dense = 0, empty = 0;
  uint64_t el = a->el, hwm = a->hwm;
  uint32_t cur = a->cur;
  ip_stack *s = &a->stk;
  /* the frames: sp one past the top frame, room up to lim */
  struct agg_frame *frames = s->frames, *sp = frames, *lim = frames;
  frames_at(s, &sp, &lim);
  uint32_t depth = (uint32_t)s->depth; /* sp - frames */
  struct ip_event *e = ev;
  const struct ip_event *end = ev + n, *run = ev; /* run: where the run began */
  uint64_t run_hwm = hwm, run_el = el;
  /* the event that completes the dense run if straight (dense_straight) */
  struct ip_event *dense_last = ev + (IP_DENSE_RUN - 1 - a->dense_run.n);
  uint64_t dense_hwm = hwm;
  uint64_t room = straight_room(a, hwm); /* an event may go straight below hwm + room */
  for (; e < end; e++) {
    uint64_t arg = e->arg, tick = e->tick;
    uint64_t raw = tick - hwm; /* an older tick wraps past room */
    if (IP_UNLIKELY((arg & 6) || !arg || raw >= room))
      goto slow; /* not an ENTER or EXIT, an empty slot, not straight, or an older tick */
    uint32_t gid = gid_of(a, arg, tick, in_signal);
    if (arg & 1) {
      if (sp == frames || sp[-1].open.key != gid || sp[-1].open.merged)
        goto slow;
    } else if (sp == lim) {
      goto slow;
    }
    e->arg = 0;
    /* the interval ending here: non-transitional */
    hwm = tick;
    room -= raw;
    uint64_t x = ip_probe_compensated_carry(raw << IP_FX, cost, hidden, depth, &a->owed, 0);
    if (IP_UNLIKELY(e == dense_last)) { /* the run's last interval: the rest before it */
      dense_straight(a, e, dense_last, dense_hwm, tick - raw);
      dense += ip_dense_run_add(&a->dense_run, raw << IP_FX, 1, cost, hidden, dense_at);
      dense_hwm = tick, dense_last = e + IP_DENSE_RUN;
    }
    el += x;
    if (!(arg & 1)) { /* ENTER */
      uint32_t node = sp != frames && cur == NO_NODE ? NO_NODE : child_node(a, cur, gid);
      sp->open = (ip_open_frame){gid, 0, 0};
      sp->node = node;
      sp->push_el = el;
      sp->push_seq = a->wait_seq;
      sp++;
      depth++;
      if (IP_UNLIKELY(node == NO_NODE))
        a->broken = 1;
      cur = node;
      continue;
    }
    /* EXIT */
    const struct agg_frame *fr = --sp;
    depth--;
    if (IP_UNLIKELY(fr->node == NO_NODE)) {
      cur = sp != frames ? sp[-1].node : NO_NODE;
      continue;
    }
    struct agg_node *nd = &a->nodes[fr->node];
    uint64_t call = el - fr->push_el;
    nd->calls++;
    nd->el_incl += call;
    nd->min_call = call < nd->min_call ? call : nd->min_call;
    nd->max_call = call > nd->max_call ? call : nd->max_call;
    lat_add(nd, ip_lat_bucket(ip_fx_ns(call, ns_fx)));
    if (IP_UNLIKELY(ip_agg_waited(a, fr)))
      closed_moved(a, nd, fr);
    cur = nd->parent; /* the frame below's path: a path's parent is where it was found */
    continue;
  slow:
    run_ends(a, hwm - run_hwm, el - run_el, (uint64_t)(e - run));
    dense_straight(a, e, dense_last, dense_hwm, hwm);
    if (arg) {
      e->arg = 0;
      a->el = el, a->hwm = hwm, a->cur = cur, s->depth = (size_t)(sp - frames);
      fold_event(a, tick, arg, in_signal);
      el = a->el, hwm = a->hwm, cur = a->cur;
      frames = s->frames;
      frames_at(s, &sp, &lim);
      depth = (uint32_t)s->depth;
    } else {
      empty++;
    }
    run = e + 1, run_hwm = hwm, run_el = el;
    dense_hwm = hwm, dense_last = e + IP_DENSE_RUN - a->dense_run.n;
    room = straight_room(a, hwm);
  }
  run_ends(a, hwm - run_hwm, el - run_el, (uint64_t)(end - run));
  dense_straight(a, end, dense_last, dense_hwm, hwm);
  a->el = el, a->hwm = hwm, a->cur = cur, s->depth = (size_t)(sp - frames);
  a->dense_intervals += dense;
  if (a->kernel_events) { /* records after the last event: the next interval's */
    kernel_upto(a, UINT64_MAX);
    a->kev = NULL;
    a->kev_i = a->kev_n = 0;
  }
  folded = n - empty;
  a->events += folded;
  atomic_fetch_add(&ip_st.events, folded);
}

void ip_agg_gap(struct ip_rt_thread *t, uint64_t start, uint64_t end) {
  struct ip_agg *a = agg_of(t);
  if (a && end > start) {
    a->gaps++;
    a->pending_gap += end - start;
  }
}

uint64_t ip_agg_open_time(const struct ip_agg *a, uint64_t upto) {
  if (a->stk.paused || upto <= a->hwm)
    return 0;
  uint64_t raw = upto - a->hwm - off_ticks(a->hwm, upto);
  return raw > UINT64_MAX >> (IP_FX + 1) ? 0 : raw << IP_FX;
}

void ip_agg_close_all(struct ip_agg *a, int alive_until_now, uint64_t now, int transitional) {
  /* A thread alive at the exit: the time since its last event is one more
   * interval of its open frames, as the converter closes such a thread. */
  if (alive_until_now && !a->stk.paused && now > a->hwm) {
    if (a->kernel_events) /* switched out and never back: off the CPU to now */
      ip_kacc_at_event(&a->kacc, now);
    interval(a, now - a->hwm - off_ticks(a->hwm, now), transitional, 0);
  }
  while (a->stk.depth) {
    closed(a, --a->stk.depth);
    a->closed_at_end++;
  }
  top_again(a);
}
