/* agg_inplace.c - a stand-in for the inclprof runtime that points every
 * plugin-instrumented unit's hook table at hooks updating the thread's
 * call-path tree in place (no buffer, no hand-off, no fold): the lower bound
 * of an aggregate mode whose probe does the tree's work itself.  Per probe:
 * the fenced clock read, the transition counter read and compared as the
 * kevents mode reads it, the interval since the last probe less the probe's
 * cost added to the thread's Elapsed timeline; an ENTER finds the child path
 * through its parent's one-entry cache (else an open-addressing table keyed
 * by parent and function) and pushes (path, timeline) on a shadow stack; an
 * EXIT pops, adds the call's Inclusive time, count, minimum, maximum and
 * histogram bucket to its path.  A busy flag set around the update stands
 * for the guard a real runtime needs against a signal handler's probes.
 * Only ENTER and EXIT: call sites of uninstrumented callees and indirect
 * calls record nothing.  The cost constants are fixed, not calibrated.
 *
 * Variants, by macro: AGG_CARRY, the fold's compensation (what a short
 * interval lacks is carried by its stack level: ip_probe_compensated_carry;
 * without it, each interval is clamped, ip_probe_compensated); AGG_LEAN,
 * each interval less the probe's cost net of its hidden part, unclamped (a
 * call's sum is clamped at its exit), and a call under 2^32 ticks made ns
 * by a 64-bit multiply; with AGG_LEAN, AGG_NO_LATENCY leaves out the
 * minimum, maximum and histogram, and AGG_TICK_HISTOGRAM keeps the
 * histogram's buckets of the ticks (no conversion) and no minimum or
 * maximum, and AGG_DEFERRED_LATENCY stores each call's path and time and
 * adds them to the minimum, maximum and histogram 256 at a time (a
 * runtime would add the rest before writing);
 * AGG_MINIMAL keeps only the clock, the transition counter, the
 * shadow stack, the path and its calls and Elapsed Inclusive ticks.
 *
 * At exit it prints the calls closed and the paths made over every thread
 * ended, so that a run checks its counts against the program's.  Linked
 * instead of libinclprof (bench/rivals.sh). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inclprof_abi.h"
#include "interval_rules.h"
#include "latency_buckets.h"

#define LIKELY(x)   __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

struct path {
  const struct inclprof_fn *hot_fn; /* the child made or found last */
  struct path *hot_child;
  struct path *parent;
  const struct inclprof_fn *fn;
  uint64_t calls, el_incl, min_call, max_call;
  uint32_t *lat; /* lat_n buckets from lat_lo */
  uint32_t lat_lo, lat_n;
  uint64_t tr_incl; /* the transitional part (the slow path's) */
};

struct frame {
  struct path *path;
  uint64_t push_el;
  uint64_t push_seq;
};

enum { STACK = 4096, TABLE = 1 << 16, CHUNK = 4096, DEFERRED = 256 };

struct thr {
  struct frame *sp, *lim;
  struct path *cur;
  uint64_t hwm, el, tr, seq;
  const volatile uint64_t *tr_src;
  uint64_t tr_last;
  uint64_t cost, hidden, ns_fx;
#ifdef AGG_CARRY
  ip_probe_owed owed;
  uint32_t depth;
#endif
  int busy; /* a probe is updating the tree: a signal handler's probe must not */
#ifdef AGG_DEFERRED_LATENCY
  unsigned n_deferred;
  struct {
    struct path *path;
    uint64_t call;
  } deferred[DEFERRED];
#endif
  struct path root;
  struct path *chunk;
  size_t chunk_used, n_paths;
  struct {
    uintptr_t key;
    struct path *val;
  } table[TABLE];
  struct frame stack[STACK];
};

/* Ticks << IP_FX in ns, rounded, at ns_fx ns per tick << 32 (as the fold). */
static inline uint64_t ip_fx_ns_of(uint64_t v, uint64_t ns_fx) {
  return (uint64_t)(((unsigned __int128)v * ns_fx + ((unsigned __int128)1 << (IP_FX + 31))) >>
                    (IP_FX + 32));
}

static __thread struct thr *tls;
static __thread const volatile uint64_t counter_never_moves;
static uint64_t all_calls, all_paths;
static pthread_mutex_t totals = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t at_thread_end;

static inline __attribute__((always_inline)) uint64_t tick(void) {
  uint32_t lo, hi;
  __asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
}

static void totals_add(struct thr *t) {
  uint64_t calls = t->root.calls;
  for (size_t i = 0; i < TABLE; i++)
    if (t->table[i].key)
      calls += t->table[i].val->calls;
  pthread_mutex_lock(&totals);
  all_calls += calls;
  all_paths += t->n_paths;
  pthread_mutex_unlock(&totals);
}

static void thread_ends(void *p) { totals_add(p); }

__attribute__((destructor)) static void report(void) {
  if (tls)
    totals_add(tls);
  fprintf(stderr, "agg_inplace: calls=%llu paths=%llu\n", (unsigned long long)all_calls,
          (unsigned long long)all_paths);
}

static __attribute__((noinline, cold)) struct thr *thread_starts(void) {
  struct thr *t = calloc(1, sizeof *t);
  if (!t)
    abort();
  t->sp = t->stack;
  t->lim = t->stack + STACK;
  t->cur = &t->root;
  t->root.hot_fn = NULL;
  t->tr_src = &counter_never_moves;
  t->cost = 30u << IP_FX; /* ticks: about a probe's on this VM */
  t->hidden = 10u << IP_FX;
  t->ns_fx = (uint64_t)(4294967296.0 / 2.1 + 0.5); /* ns per tick << 32 at 2.1 GHz */
  t->hwm = tick();
  tls = t;
  pthread_setspecific(at_thread_end, t);
  return t;
}

__attribute__((constructor)) static void key_made(void) {
  pthread_key_create(&at_thread_end, thread_ends);
}

static __attribute__((noinline)) struct path *child_slow(struct thr *t, struct path *p,
                                                         const struct inclprof_fn *fn) {
  uintptr_t key = (uintptr_t)p * 31u ^ (uintptr_t)fn;
  size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 48) & (TABLE - 1);
  while (t->table[h].key &&
         !(t->table[h].key == key && t->table[h].val->parent == p && t->table[h].val->fn == fn))
    h = (h + 1) & (TABLE - 1);
  struct path *c = t->table[h].val;
  if (!t->table[h].key) {
    if (!t->chunk || t->chunk_used == CHUNK) {
      t->chunk = calloc(CHUNK, sizeof *t->chunk);
      t->chunk_used = 0;
      if (!t->chunk)
        abort();
    }
    c = &t->chunk[t->chunk_used++];
    c->parent = p;
    c->fn = fn;
    c->min_call = UINT64_MAX;
    t->table[h].key = key;
    t->table[h].val = c;
    t->n_paths++;
  }
  p->hot_fn = fn;
  p->hot_child = c;
  return c;
}

#if !defined AGG_MINIMAL && !defined AGG_NO_LATENCY
static __attribute__((noinline, cold)) void lat_grow(struct path *c, uint32_t b) {
  uint32_t lo = c->lat_n ? (c->lat_lo < b ? c->lat_lo : b) : b & ~(IP_LAT_SUB - 1u);
  uint32_t hi = c->lat_n ? (c->lat_lo + c->lat_n > b + 1 ? c->lat_lo + c->lat_n : b + 1) : b + 1;
  lo &= ~(IP_LAT_SUB - 1u);
  hi = (hi + IP_LAT_SUB - 1u) & ~(IP_LAT_SUB - 1u);
  uint32_t *l = calloc(hi - lo, sizeof *l);
  if (!l)
    abort();
  if (c->lat_n)
    memcpy(l + (c->lat_lo - lo), c->lat, c->lat_n * sizeof *l);
  free(c->lat);
  c->lat = l;
  c->lat_lo = lo;
  c->lat_n = hi - lo;
}
#endif

/* The transition counter moved: the interval is transitional (the real
 * runtime splits it by the kernel's records). */
static __attribute__((noinline, cold)) void moved(struct thr *t, uint64_t now_tr, uint64_t x) {
  t->tr_last = now_tr;
  t->tr += x;
  t->seq++;
}

/* The interval since the last probe, compensated, onto the timeline. */
static inline __attribute__((always_inline)) struct thr *interval(void) {
  struct thr *t = tls;
  if (UNLIKELY(!t))
    t = thread_starts();
  uint64_t now = tick();
#ifndef AGG_MINIMAL
  if (UNLIKELY(t->busy))
    abort(); /* the real runtime: the handler's events wait in a buffer */
  t->busy = 1;
#endif
  uint64_t tr = *t->tr_src;
  uint64_t x = (now - t->hwm) << IP_FX;
  t->hwm = now;
#if defined AGG_MINIMAL
  uint64_t y = x;
#elif defined AGG_LEAN
  uint64_t y = x - (t->cost - t->hidden); /* a call's sum is clamped at its exit */
#elif defined AGG_CARRY
  uint64_t y = ip_probe_compensated_carry(x, t->cost, t->hidden, t->depth, &t->owed, 0);
#else
  uint64_t y = ip_probe_compensated(x, t->cost, t->hidden);
#endif
  if (UNLIKELY(tr != t->tr_last))
    moved(t, tr, y);
  t->el += y;
  return t;
}

#if !defined AGG_MINIMAL && !defined AGG_NO_LATENCY
/* A call's minimum, maximum and histogram bucket. */
static inline __attribute__((always_inline)) void latency_add(const struct thr *t, struct path *c,
                                                              uint64_t call) {
  (void)t; /* the histogram of ticks needs no conversion */
#ifdef AGG_TICK_HISTOGRAM
  uint32_t b = ip_lat_bucket(call >> IP_FX) - c->lat_lo;
#else
  c->min_call = call < c->min_call ? call : c->min_call;
  c->max_call = call > c->max_call ? call : c->max_call;
#endif
#if defined AGG_TICK_HISTOGRAM
#elif defined AGG_LEAN
  uint64_t ns = LIKELY(call >> (32 + IP_FX) == 0)
                    ? ((call >> IP_FX) * t->ns_fx + (1ull << 31)) >> 32
                    : ip_fx_ns_of(call, t->ns_fx);
  uint32_t b = ip_lat_bucket(ns) - c->lat_lo;
#else
  uint32_t b = ip_lat_bucket(ip_fx_ns_of(call, t->ns_fx)) - c->lat_lo;
#endif
  if (UNLIKELY(b >= c->lat_n)) {
    lat_grow(c, b + c->lat_lo);
#ifdef AGG_TICK_HISTOGRAM
    b = ip_lat_bucket(call >> IP_FX) - c->lat_lo;
#else
    b = ip_lat_bucket(ip_fx_ns_of(call, t->ns_fx)) - c->lat_lo;
#endif
  }
  c->lat[b]++;
}
#endif

#ifdef AGG_DEFERRED_LATENCY
/* The calls kept since the last batch into their paths' latency values. */
static __attribute__((noinline)) void latency_batch(struct thr *t) {
  for (unsigned i = 0; i < DEFERRED; i++)
    latency_add(t, t->deferred[i].path, t->deferred[i].call);
  t->n_deferred = 0;
}
#endif

static void agg_enter(const struct inclprof_fn *fn) {
  struct thr *t = interval();
  struct frame *f = t->sp;
  if (UNLIKELY(f == t->lim))
    abort(); /* the real runtime counts the frame as lost */
  struct path *p = t->cur;
  struct path *c = LIKELY(p->hot_fn == fn) ? p->hot_child : child_slow(t, p, fn);
  f->path = c;
  f->push_el = t->el;
  f->push_seq = t->seq;
  t->sp = f + 1;
#ifdef AGG_CARRY
  t->depth++;
#endif
  t->cur = c;
  __asm__ __volatile__("" ::: "memory");
#ifndef AGG_MINIMAL
  t->busy = 0;
#endif
}

static void agg_exit(const struct inclprof_fn *fn) {
  struct thr *t = interval();
  struct frame *f = t->sp - 1;
  struct path *c = f->path;
  if (UNLIKELY(f < t->stack || c->fn != fn))
    abort(); /* the real runtime's stack rules */
  t->sp = f;
#ifdef AGG_CARRY
  t->depth--;
#endif
  uint64_t call = t->el - f->push_el;
#ifdef AGG_LEAN
  call = (int64_t)call < 0 ? 0 : call;
#endif
  c->calls++;
  c->el_incl += call;
#if defined AGG_DEFERRED_LATENCY
  unsigned k = t->n_deferred;
  t->deferred[k].path = c;
  t->deferred[k].call = call;
  t->n_deferred = k + 1;
  if (UNLIKELY(k + 1 == DEFERRED))
    latency_batch(t);
#elif !defined AGG_MINIMAL && !defined AGG_NO_LATENCY
  latency_add(t, c, call);
#endif
  if (UNLIKELY(f->push_seq != t->seq))
    c->tr_incl += 0; /* the real runtime: the transitional part since the push */
  t->cur = c->parent;
  __asm__ __volatile__("" ::: "memory");
#ifndef AGG_MINIMAL
  t->busy = 0;
#endif
}

static void agg_none(const struct inclprof_fn *fn) { (void)fn; }
static void agg_none_target(const void *target) { (void)target; }

void __inclprof_register_tu(struct inclprof_tu *tu) {
  if (tu->abi_version != INCLPROF_ABI_VERSION)
    return;
  tu->hooks.enter = agg_enter;
  tu->hooks.exit = agg_exit;
  tu->hooks.call = agg_none;
  tu->hooks.ret = agg_none;
  tu->hooks.call_indirect = agg_none_target;
  tu->hooks.ret_indirect = agg_none_target;
}

/* The hooks stay valid for the life of the program: nothing to undo. */
void __inclprof_unregister_tu(struct inclprof_tu *tu) { (void)tu; }
