/* model/replay.c - replays one thread's events on a shadow stack and attributes
 * every interval between consecutive events (the rules: "The values" in
 * docs/converter.md): Elapsed Inclusive to every distinct function on the
 * stack, Elapsed Exclusive to the top, and the same to the Application values
 * when the interval is not transitional.
 *
 * Everything costs O(1) per event and goes to the call path (ip_node) only:
 * the thread keeps running totals of its elapsed time, application time and
 * samples; each frame remembers them at its push and the difference is the
 * path's inclusive value at its pop; the top path gets each interval's
 * exclusive value.  Function, module and thread values are derived from the
 * call tree when the thread ends (model/thread_sums.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/critical.h"
#include "model/latency.h"
#include "model/loader.h"
#include "model/windows.h"
#include "util/util.h"

#define NONE UINT32_MAX
/* A futex call's system-call record and futex-wait record lie this close. */
#define FUTEX_RECORDS_NS 2000.0

/* Whether th is a fork child's forking thread (its tid the process's
 * pid): its trace begins inside the frames its parent had open. */
static int forking_thread(const ip_file *f, const ip_thread *th) {
  const ip_process *p = &f->s->processes[f->proc];
  return p->forked_from && th->tid == p->pid;
}

ip_tstate *ip_replay_thread(ip_file *f, uint32_t tid) {
  uint32_t i = ip_u64map_get(&f->tid_state, tid);
  if (i != NONE && !f->states[i]->finished)
    return f->states[i];
  ip_tstate *ts = ip_must_calloc(1, sizeof *ts);
  ts->thread = ip_tables_thread(f->s, f->tabs, f->proc, tid);
  if (f->o && f->o->latency) {
    ip_thread *th = &f->s->threads[ts->thread];
    if (f->o->keep != IP_KEEP_PATHS && !f->o->file_done) /* no path shown: by function */
      th->lat_per_func = 1;
    else
      th->lat = ip_must_calloc(1, sizeof(ip_lat_pair));
  }
  ip_stack_init(&ts->stk, NULL, sizeof(ip_frame), 0);
  ts->stk.began_inside = (uint8_t)forking_thread(f, &f->s->threads[ts->thread]);
  if (f->wake_edges && f->o && f->o->critical && f->o->critical->collect) {
    ts->kl = f->s->threads[ts->thread].kline = ip_kline_new();
    ts->kl->futex_slack = (uint64_t)(FUTEX_RECORDS_NS / f->ns_per_tick) + 1;
  }
  if (i != NONE) { /* tid reused after ThreadEnd: a new thread */
    free(f->states[i]);
    f->states[i] = ts;
    return ts;
  }
  ip_must_grow((void **)&f->states, &f->cap_states, f->n_states + 1, sizeof *f->states);
  f->states[f->n_states] = ts;
  ip_u64map_put(&f->tid_state, tid, (uint32_t)f->n_states++);
  return ts;
}

ip_lat_pair *ip_replay_func_lat(ip_thread *th, uint32_t fn) {
  if (fn >= th->n_lat_by_func) {
    size_t old = th->n_lat_by_func;
    ip_must_grow((void **)&th->lat_by_func, &th->n_lat_by_func, (size_t)fn + 1,
                 sizeof *th->lat_by_func);
    memset(th->lat_by_func + old, 0, (th->n_lat_by_func - old) * sizeof *th->lat_by_func);
  }
  return &th->lat_by_func[fn];
}

uint32_t ip_replay_child_node(ip_tstate *ts, ip_thread *th, uint32_t parent, uint32_t fn) {
  uint64_t key = (uint64_t)parent << 32 | fn;
  uint32_t n = ip_u64map_get(&ts->child, key);
  if (n != NONE)
    return n;
  /* The capacity is the power of two at or above n_nodes: double it when
   * n_nodes reaches a power of two. */
  if ((th->n_nodes & (th->n_nodes - 1)) == 0) {
    th->nodes = ip_must_realloc(th->nodes, th->n_nodes * 2, sizeof *th->nodes);
    if (th->lat) {
      th->lat = ip_must_realloc(th->lat, th->n_nodes * 2, sizeof *th->lat);
      memset(&th->lat[th->n_nodes], 0, th->n_nodes * sizeof *th->lat);
    }
  }
  n = (uint32_t)th->n_nodes++;
  ip_node *nd = &th->nodes[n];
  memset(nd, 0, sizeof *nd);
  nd->func = fn;
  nd->parent = parent;
  nd->first_child = IP_NO_NODE;
  nd->v.min_call = UINT64_MAX;
  nd->next_sibling = th->nodes[parent].first_child;
  th->nodes[parent].first_child = n;
  ip_u64map_put(&ts->child, key, n);
  return n;
}

/* ip_replay_child_node through the thread's cache of recent paths. */
static inline uint32_t child_node(ip_tstate *ts, ip_thread *th, uint32_t parent, uint32_t fn) {
  uint64_t key = (uint64_t)parent << 32 | fn;
  size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - IP_CHILD_CACHE_BITS));
  if (ts->child_hot_key[h] == key + 1)
    return ts->child_hot_val[h];
  uint32_t n = ip_replay_child_node(ts, th, parent, fn);
  ts->child_hot_key[h] = key + 1;
  ts->child_hot_val[h] = n;
  return n;
}

static inline ip_frame *frame_at(const ip_tstate *ts, size_t i) {
  return (ip_frame *)ts->stk.frames + i;
}

/* The top frame's values (a frame is open). */
static inline ip_values *top_values(const ip_tstate *ts, ip_thread *th) {
  return &th->nodes[frame_at(ts, ts->stk.depth - 1)->node].v;
}

/* Room for one more frame before an event that may open one. */
static void make_room(ip_tstate *ts) {
  size_t cap = ts->stk.cap ? ts->stk.cap * 2 : 64;
  ts->stk.frames = ip_must_realloc(ts->stk.frames, cap, sizeof(ip_frame));
  ts->stk.cap = cap;
}

/* Whether this file's call tree is folded (ip_load_opts.fold): what each
 * replay entry sets f->fold to. */
static int folds(const ip_file *f) {
  return f->o && f->o->fold && !f->visitor && !f->o->critical && !f->o->operations;
}

/* The options of a file that the replay tests for every event, as values:
 * the batch's loop runs in copies where they are constants
 * (ip_replay_batch), each without the tests of what it leaves out.  kev:
 * kernel-event records (f->kernel_events); fold: f->fold; plain: no
 * critical path, latency or call visitor; visit: a call visitor, no
 * critical path or latency (both 0: look). */
typedef struct rflags {
  int kev, fold, plain, visit;
} rflags;

/* The flags of f, plain unknown: every copy's behaviour. */
static inline rflags flags_of(const ip_file *f) {
  return (rflags){f->kernel_events != 0, f->fold, 0, 0};
}

/* Whether a copy of flags rf looks for the critical path and latency. */
static inline int looks(rflags rf) { return !rf.plain && !rf.visit; }

/* Folded: room in the thread's counts of open frames for function fn and
 * module m. */
static __attribute__((noinline)) void fold_room(ip_tstate *ts, uint32_t fn, uint32_t m) {
  if (fn >= ts->n_fold_fn) {
    size_t old = ts->n_fold_fn;
    ip_must_grow((void **)&ts->fold_fn, &ts->n_fold_fn, (size_t)fn + 1, sizeof *ts->fold_fn);
    memset(ts->fold_fn + old, 0, (ts->n_fold_fn - old) * sizeof *ts->fold_fn);
  }
  if (m >= ts->n_fold_mod) {
    size_t old = ts->n_fold_mod;
    ip_must_grow((void **)&ts->fold_mod_open, &ts->n_fold_mod, (size_t)m + 1,
                 sizeof *ts->fold_mod_open);
    memset(ts->fold_mod_open + old, 0, (ts->n_fold_mod - old) * sizeof *ts->fold_mod_open);
  }
}

/* Folded: the node of the frame just opened (fr, its parent's node parent),
 * the outermost open frame's of its function when one is open. */
static inline __attribute__((always_inline)) uint32_t
fold_opened(const ip_file *f, ip_tstate *ts, ip_thread *th, ip_frame *fr, uint32_t parent) {
  uint32_t fn = fr->open.key, m = f->s->funcs[fn].module;
  if (__builtin_expect(fn >= ts->n_fold_fn || m >= ts->n_fold_mod, 0))
    fold_room(ts, fn, m);
  ip_fold_fn *ff = &ts->fold_fn[fn];
  th->folded = 1;
  fr->nested = ff->open++ != 0;
  if (!fr->nested)
    ff->node = child_node(ts, th, parent, fn);
  fr->fold_mod = m;
  fr->mod_outer = ts->fold_mod_open[m]++ == 0;
  return ff->node;
}

/* Folded: the module sums of fr, the outermost open frame of its module,
 * which closes with the inclusive values el, app, smp. */
static inline __attribute__((always_inline)) void
fold_module_closed(const ip_file *f, ip_tstate *ts, ip_thread *th, const ip_frame *fr, uint64_t el,
                   uint64_t app, uint64_t smp, rflags rf) {
  uint32_t m = fr->fold_mod;
  if (m >= th->n_fold_mod) {
    size_t old = th->n_fold_mod;
    ip_must_grow((void **)&th->fold_mod, &th->n_fold_mod, (size_t)m + 1, sizeof *th->fold_mod);
    memset(th->fold_mod + old, 0, (th->n_fold_mod - old) * sizeof *th->fold_mod);
  }
  ip_values *v = &th->fold_mod[m];
  v->el_incl += el;
  v->app_incl += app;
  v->smp_incl += smp;
  if (looks(rf)) /* else no critical path: crit_ns stays 0 */
    v->crit_incl += ts->crit_ns - fr->push_crit;
  if (f->kernel_events)
    for (int k = 0; k < IP_WAIT_N; k++)
      v->wait_incl[k] += ts->wait[k] - fr->push_wait[k];
}

/* Folded: the frame fr closes (its function fn); its inclusive values el,
 * app, smp go to its module when it was the module's outermost frame. */
static inline __attribute__((always_inline)) void fold_closed(const ip_file *f, ip_tstate *ts,
                                                              ip_thread *th, const ip_frame *fr,
                                                              uint64_t el, uint64_t app,
                                                              uint64_t smp, rflags rf) {
  ts->fold_fn[fr->open.key].open--;
  ts->fold_mod_open[fr->fold_mod]--;
  if (fr->mod_outer)
    fold_module_closed(f, ts, th, fr, el, app, smp, rf);
}

/* The frame the stack rules just opened at the top: its call path. */
static inline __attribute__((always_inline)) void opened(const ip_file *f, ip_tstate *ts,
                                                         ip_thread *th, rflags rf) {
  size_t depth = ts->stk.depth;
  ip_frame *fr = frame_at(ts, depth - 1);
  uint32_t parent = depth > 1 ? frame_at(ts, depth - 2)->node : 0;
  fr->nested = fr->mod_outer = fr->resumed = 0;
  uint32_t node =
      rf.fold ? fold_opened(f, ts, th, fr, parent) : child_node(ts, th, parent, fr->open.key);
  fr->node = node;
  fr->site = 0;
  fr->push_el = ts->el_ns;
  fr->push_app = ts->app_ns;
  fr->push_smp = ts->smp;
  fr->push_tick = ts->now_tick;
  fr->coro = 0;
  fr->push_crit = ts->crit_ns;
  const ip_critical *c = looks(rf) && f->o ? f->o->critical : NULL;
  if (c && c->whatif && fr->open.key < c->n_whatif_target && c->whatif_target[fr->open.key])
    ts->wf_depth++;
  if (rf.kev) /* else the wait timeline stays 0 */
    memcpy(fr->push_wait, ts->wait, sizeof fr->push_wait);
  th->nodes[node].v.calls++;
}

/* ticks in ns, rounded; UINT64_MAX where a damaged trace's ticks would
 * overflow (converting a double beyond uint64_t is undefined). */
static uint64_t ticks_ns(const ip_file *f, uint64_t ticks) {
  double ns = (double)ticks * f->ns_per_tick + 0.5;
  return ns < 18446744073709551616.0 ? (uint64_t)ns : UINT64_MAX;
}

/* A tick by the clock, in ns from the session start. */
static uint64_t wall_ns(const ip_file *f, uint64_t tick) {
  uint64_t ns = ticks_ns(f, tick > f->start_tick ? tick - f->start_tick : 0);
  return ns < UINT64_MAX - f->proc_origin_ns ? f->proc_origin_ns + ns : UINT64_MAX;
}

/* The coroutine body just opened at the top runs the frame ts->event_frame. */
static void coro_opened(const ip_file *f, ip_tstate *ts, ip_thread *th) {
  size_t depth = ts->stk.depth;
  ip_frame *fr = frame_at(ts, depth - 1);
  ip_must_grow((void **)&th->coro, &th->cap_coro, th->n_coro + 1, sizeof *th->coro);
  ip_coro_run *r = &th->coro[th->n_coro++];
  memset(r, 0, sizeof *r);
  r->frame = ts->event_frame;
  r->wall_start = r->wall_end = wall_ns(f, fr->push_tick);
  r->tl_start = ts->origin_ns + fr->push_el;
  r->node = fr->node;
  r->caller_node = IP_NO_NODE;
  if (depth > 1) {
    const ip_frame *up = frame_at(ts, depth - 2);
    r->caller_node = up->node;
    r->caller_wall = wall_ns(f, up->push_tick);
    r->caller_tl = ts->origin_ns + up->push_el;
  }
  fr->coro = (uint32_t)th->n_coro;
}

/* The frame at depth i, just closed: its inclusive values. */
static inline __attribute__((always_inline)) void closed(ip_file *f, ip_tstate *ts, ip_thread *th,
                                                         size_t i, rflags rf) {
  const ip_frame *fr = frame_at(ts, i);
  uint64_t el = ts->el_ns - fr->push_el, app = ts->app_ns - fr->push_app;
  uint64_t smp = ts->smp - fr->push_smp;
  ip_values *v = &th->nodes[fr->node].v;
  if (rf.fold)
    fold_closed(f, ts, th, fr, el, app, smp, rf);
  if (!fr->nested) { /* folded and nested: the outer frame of its function counts this time */
    v->el_incl += el;
    v->app_incl += app;
    v->smp_incl += smp;
    if (looks(rf)) /* else no critical path: crit_ns stays 0 */
      v->crit_incl += ts->crit_ns - fr->push_crit;
  }
  const ip_critical *c = looks(rf) && f->o ? f->o->critical : NULL;
  if (c && c->whatif && fr->open.key < c->n_whatif_target && c->whatif_target[fr->open.key] &&
      ts->wf_depth)
    ts->wf_depth--;
  if (rf.kev && !fr->nested)
    for (int k = 0; k < IP_WAIT_N; k++) {
      th->call_wait[k] = ts->wait[k] - fr->push_wait[k];
      v->wait_incl[k] += th->call_wait[k];
    }
  if (!fr->resumed && el < v->min_call)
    v->min_call = el;
  if (!fr->resumed && el > v->max_call)
    v->max_call = el;
  if (looks(rf) && !fr->resumed && (th->lat || th->lat_per_func)) {
    ip_lat_pair *lat =
        th->lat ? &th->lat[fr->node] : ip_replay_func_lat(th, th->nodes[fr->node].func);
    if (f->o->latency & IP_LAT_ELAPSED)
      ip_lat_add(&lat->el, el);
    if (f->o->latency & IP_LAT_APPLICATION)
      ip_lat_add(&lat->app, app);
  }
  if (fr->site)
    ip_site_call(ts, th, fr->node, fr->site, 1, el, app);
  if (fr->coro) {
    ip_coro_run *r = &th->coro[fr->coro - 1];
    r->el = el;
    r->app = app;
    r->wall_end = wall_ns(f, ts->now_tick);
  }
  const ip_call_visitor *vis = rf.plain ? NULL : f->visitor;
  if (vis) {
    th->call_node = fr->node;
    th->call_partial = fr->resumed;
    vis->on_call(vis->ctx, f->s, th, fr->open.key, (uint32_t)i, ts->origin_ns + fr->push_el, el,
                 app);
  }
}

/* The frames the stack rules closed, from the top before the event (was)
 * down to the new depth: the innermost first.  Those above the last one were
 * skipped by an exit (longjmp, exceptions). */
static inline __attribute__((always_inline)) void
closed_down(ip_file *f, ip_tstate *ts, ip_thread *th, size_t was, rflags rf) {
  size_t target = ts->stk.depth;
  for (size_t i = was - 1; i > target; i--) {
    const ip_frame *fr = frame_at(ts, i);
    if (fr->open.from_call && !fr->open.merged)
      th->rep.unwound++; /* a library call left by unwinding: expected, not a repair */
    else
      th->rep.popped++;
    closed(f, ts, th, i, rf);
  }
  closed(f, ts, th, target, rf);
}

/* The frames a landing closed (ip_stack_land), from the top before it
 * (was) down to the new depth: all skipped by a longjmp. */
static void closed_landed(ip_file *f, ip_tstate *ts, ip_thread *th, size_t was) {
  for (size_t i = was; i-- > ts->stk.depth;) {
    const ip_frame *fr = frame_at(ts, i);
    if (fr->open.from_call && !fr->open.merged)
      th->rep.unwound++;
    else
      th->rep.popped++;
    closed(f, ts, th, i, flags_of(f));
  }
}

/* x * num / den without overflow (den > 0). */
static uint64_t scale(uint64_t x, uint64_t num, uint64_t den) {
  return (uint64_t)((unsigned __int128)x * num / den);
}

/* Splits the el ns of a transitional interval by the records taken since the
 * previous interval (the rules: "Wait breakdown" in docs/converter.md) into
 * w[IP_WAIT_N]. */
static void wait_split(const ip_file *f, const ip_kacc *a, uint64_t el, uint64_t *w) {
  uint64_t pre = ticks_ns(f, a->off[0]), blk = ticks_ns(f, a->off[1]);
  unsigned __int128 tot = (unsigned __int128)pre + blk;
  if (tot > el) { /* never more than the interval (nor wrapping, in a damaged trace) */
    pre = (uint64_t)((unsigned __int128)el * pre / tot);
    blk = el - pre;
  }
  w[IP_W_SYSCALL] = w[IP_W_FAULT] = 0;
  uint64_t rest = el - pre - blk;
  if (f->fault_fx && (a->sys + a->pf)) { /* the faults take at most their calibrated time */
    unsigned __int128 most = (unsigned __int128)a->pf * f->fault_fx >> IP_FX;
    most = most > UINT64_MAX ? UINT64_MAX : most;
    w[IP_W_FAULT] = ticks_ns(f, (uint64_t)most);
    w[IP_W_FAULT] = w[IP_W_FAULT] < rest ? w[IP_W_FAULT] : rest;
    w[IP_W_SYSCALL] = a->sys ? rest - w[IP_W_FAULT] : 0;
  } else if (a->sys + a->pf) { /* a trace without the calibration: by their counts */
    w[IP_W_FAULT] = scale(rest, a->pf, a->sys + a->pf);
    w[IP_W_SYSCALL] = rest - w[IP_W_FAULT];
  } /* what no column takes has no known cause among the four: it stays
     * Non-Application only (shown as Other by report --wait) */
  w[IP_W_PREEMPTED] = pre;
  w[IP_W_BLOCKED] = blk;
  w[IP_W_FAULTS] = a->pf;
}

/* The wait breakdown of an interval of el ns (kevents traces): split it when
 * it is transitional and its records are known; the accumulator starts anew. */
static void interval_wait(const ip_file *f, ip_tstate *ts, ip_thread *th, uint64_t el, int split) {
  if (ts->kacc.lost) { /* its records are missing: Non-Application in no column */
    th->kernel_lost++;
    split = ts->kacc.lost = 0;
  }
  if (split) {
    uint64_t w[IP_WAIT_N];
    wait_split(f, &ts->kacc, el, w);
    ip_values *v = ts->stk.depth ? top_values(ts, th) : NULL;
    for (int k = 0; k < IP_WAIT_N; k++) {
      ts->wait[k] += w[k];
      if (v)
        v->wait_excl[k] += w[k];
    }
  }
  ts->kacc.off[0] = ts->kacc.off[1] = ts->kacc.sys = ts->kacc.pf = 0;
}

/* Attributes one interval of raw ticks ending at the current event. */
/* `probe`: the interval ends at a probe (whose cost it holds), not at a
 * sample, which the runtime's timer signal takes between probes.
 * `split`: the interval's kernel records are known (wait breakdown).
 * `off_fx`: its off-CPU time by those records (ip_kacc_off_fx). */
static inline __attribute__((always_inline)) uint64_t
interval(const ip_file *f, ip_tstate *ts, ip_thread *th, uint64_t raw, int transitional, int probe,
         int split, uint64_t off_fx, rflags rf) {
  if (raw > UINT64_MAX >> (IP_FX + 1)) /* centuries: damage, not time */
    raw = 0;
  if (ts->pending_gap) {
    uint64_t g = ts->pending_gap < raw ? ts->pending_gap : raw;
    th->gap_ns += ticks_ns(f, g);
    ts->pending_gap = 0;
    raw -= g;
  }
  uint64_t x = raw << IP_FX;
  if (transitional) /* the kernel's kevents record for it */
    x = x > f->kevent_fx ? x - f->kevent_fx : 0;
  if (probe) {
    uint64_t c = f->cost_fx;
    if (__builtin_expect(ts->ptr_pending != 0, 0)) { /* pointer calls' hooks ran in it */
      uint64_t more = ts->ptr_pending * f->ptr_call_fx;
      c += more;
      ts->dense_run.extra += transitional ? 0 : more;
      ts->ptr_pending = 0;
    }
    uint64_t y = ip_probe_compensated_carry(x, c, f->hidden_fx, (uint32_t)ts->stk.depth,
                                            &ts->probe_owed, off_fx);
    if (!transitional) {
      ts->probe_removed_fx += x - y;
      ts->app_intervals++;
      ts->dense_intervals +=
          ip_dense_run_add(&ts->dense_run, x, 1, f->cost_fx, f->hidden_fx, f->dense_fx);
    }
    x = y;
  } else if (!transitional) {
    ip_dense_run_add(&ts->dense_run, x, 0, f->cost_fx, f->hidden_fx, f->dense_fx);
  }
  ts->comp_fx += x;
  uint64_t now = ip_replay_fx_ns(f, ts->comp_fx);
  uint64_t el = now - ts->el_ns;
  ts->el_ns = now;
  if (!transitional)
    ts->app_ns += el;
  if (rf.kev)
    interval_wait(f, ts, th, el, transitional && split);
  if (!ts->stk.depth)
    return el;
  ip_values *v = top_values(ts, th);
  v->el_excl += el;
  v->app_excl += transitional ? 0 : el;
  return el;
}

/* The interval (a, b] of raw ticks on thread th just took el ns: its share
 * of the critical path's pieces on th goes to the top path's Critical
 * Exclusive time and the thread's critical timeline. */
static void critical_share(const ip_critical *c, ip_tstate *ts, ip_thread *th, uint64_t a,
                           uint64_t b, uint64_t el) {
  size_t n = ts->thread < c->n_threads ? c->thread_n[ts->thread] : 0;
  while (ts->crit_at < n && ip_critical_piece(c, ts->thread, ts->crit_at)->to <= a)
    ts->crit_at++;
  uint64_t on = 0;
  for (size_t i = ts->crit_at; i < n; i++) {
    const ip_cp_piece *p = ip_critical_piece(c, ts->thread, i);
    if (p->from >= b)
      break;
    on += (p->to < b ? p->to : b) - (p->from > a ? p->from : a);
  }
  if (!on || b <= a)
    return;
  uint64_t share = on >= b - a ? el : scale(el, on, b - a);
  ts->crit_ns += share;
  if (ts->stk.depth)
    top_values(ts, th)->crit_excl += share;
}

/* The kernel-event records of a batch, taken in tick order as the events
 * reach them. */
typedef struct kcursor {
  const uint64_t *dt;
  size_t i, n;
  uint64_t tick;
  const uint32_t *wakee; /* the woken tid of each KEV_WAKE record */
  size_t wi, n_wakee;
  const uint64_t *futex; /* the word and operation of each KEV_FUTEX_WAIT record */
  const uint32_t *futex_op;
  size_t fi, n_futex;
} kcursor;

/* Takes the records at or before tick into the accumulator. */
static void kernel_upto(ip_tstate *ts, kcursor *k, uint64_t tick) {
  while (k->i < k->n) {
    uint64_t d = k->dt[k->i];
    uint64_t t = k->tick + (d >> 3);
    if (t > tick)
      break;
    k->tick = t;
    k->i++;
    if (ts->kl) {
      uint32_t arg = 0;
      uint64_t futex = 0;
      if ((d & 7) == INCLPROF__KERNEL_EVENT_KIND__KEV_WAKE)
        arg = k->wi < k->n_wakee ? k->wakee[k->wi++] : 0;
      if ((d & 7) == INCLPROF__KERNEL_EVENT_KIND__KEV_FUTEX_WAIT && k->fi < k->n_futex) {
        futex = k->futex[k->fi];
        arg = k->futex_op[k->fi++];
      }
      ip_kline_record(ts->kl, (uint32_t)(d & 7), t, arg, futex,
                      ts->stk.depth ? frame_at(ts, ts->stk.depth - 1)->node : 0);
    }
    ip_kacc_record(&ts->kacc, (uint32_t)(d & 7), t);
  }
}

static void sample(ip_tstate *ts, ip_thread *th, uint32_t arg, uint64_t pc, ip_session *s) {
  if (arg & 1) {
    s->samples_in_runtime++;
    return;
  }
  if (!ts->stk.depth) {
    th->samples_outside++;
    return;
  }
  ts->smp++;
  uint32_t node = frame_at(ts, ts->stk.depth - 1)->node;
  th->nodes[node].v.smp_excl++;
  if (pc)
    ip_pc_sample_add(&ts->pcs, th, pc, node);
}

/* An event that names no function through its code (SAMPLE, MARK, PAUSE,
 * RESUME, a landing): out of the batch's loop. */
static __attribute__((noinline)) void event_other(ip_file *f, ip_tstate *ts, ip_thread *th,
                                                  uint32_t code) {
  uint32_t kind = code & 7;
  if (kind == INCLPROF__EVENT_KIND__EV_SAMPLE) {
    uint64_t pc = ts->next_sample < ts->n_sample_addr ? ts->sample_addr[ts->next_sample] : 0;
    ts->next_sample++;
    if (!ts->stk.paused)
      sample(ts, th, code >> 3, pc, f->s);
    return;
  }
  size_t was = ts->stk.depth;
  if (kind == INCLPROF__EVENT_KIND__EV_RESUME && code >> 3) {
    /* a landing (gid + 1); a gid no event defined has no frame open, and is
     * not defined here (the replay pool defines functions before a batch) */
    uint32_t gid = (code >> 3) - 1;
    if (gid < f->n_gid && f->gid_func[gid] != NONE &&
        ip_stack_event_sized(&ts->stk, kind, f->gid_func[gid], sizeof(ip_frame)) == IP_STACK_LANDED)
      closed_landed(f, ts, th, was);
    return;
  }
  (void)ip_stack_event(&ts->stk, kind, NONE); /* PAUSE, RESUME, MARK: no function */
}

/* An event of kind ENTER, EXIT, CALL or RET (a constant in each copy, which
 * keeps only its own part of the stack rules): the rules on the session's
 * functions, then what it opened or closed. */
static inline __attribute__((always_inline)) void
event_fn(ip_file *f, ip_tstate *ts, ip_thread *th, uint32_t code, uint32_t kind, rflags rf) {
  size_t was = ts->stk.depth;
  uint32_t fn = ip_file_func(f, code >> 3);
  if ((kind == INCLPROF__EVENT_KIND__EV_ENTER || kind == INCLPROF__EVENT_KIND__EV_CALL) &&
      was == ts->stk.cap)
    make_room(ts);
  switch (ip_stack_event_sized(&ts->stk, kind, fn, sizeof(ip_frame))) {
  case IP_STACK_PUSHED:
    opened(f, ts, th, rf);
    if (ts->event_frame && kind == INCLPROF__EVENT_KIND__EV_ENTER)
      coro_opened(f, ts, th);
    if (kind == INCLPROF__EVENT_KIND__EV_CALL)
      frame_at(ts, ts->stk.depth - 1)->site = ip_file_site(f, code >> 3);
    break;
  case IP_STACK_POPPED:
    closed_down(f, ts, th, was, rf);
    break;
  case IP_STACK_UNMATCHED:
    if (!ts->stk.depth && ts->stk.began_inside)
      th->rep.forked++; /* a frame the parent opened before the fork */
    else
      th->rep.unmatched++;
    break;
  case IP_STACK_JOINED: /* an indirect call of the body (a resumption), opened at the call */
    if (ts->event_frame && !frame_at(ts, ts->stk.depth - 1)->coro)
      coro_opened(f, ts, th);
    break;
  default: /* SAME; never FULL: there is room */
    break;
  }
}

/* One event, by its kind.  Inline in the batch's loop, once (event()
 * elsewhere). */
static inline __attribute__((always_inline)) void
event_inline(ip_file *f, ip_tstate *ts, ip_thread *th, uint32_t code, rflags rf) {
  switch (code & 7) {
  case INCLPROF__EVENT_KIND__EV_ENTER:
    event_fn(f, ts, th, code, INCLPROF__EVENT_KIND__EV_ENTER, rf);
    break;
  case INCLPROF__EVENT_KIND__EV_EXIT:
    event_fn(f, ts, th, code, INCLPROF__EVENT_KIND__EV_EXIT, rf);
    break;
  case INCLPROF__EVENT_KIND__EV_CALL:
    event_fn(f, ts, th, code, INCLPROF__EVENT_KIND__EV_CALL, rf);
    break;
  case INCLPROF__EVENT_KIND__EV_RET:
    event_fn(f, ts, th, code, INCLPROF__EVENT_KIND__EV_RET, rf);
    break;
  default:
    event_other(f, ts, th, code);
    break;
  }
}

static void event(ip_file *f, ip_tstate *ts, ip_thread *th, uint32_t code) {
  event_inline(f, ts, th, code, flags_of(f));
}

/* Event i of the batch, which the next coroutine frame pair may name: the
 * frame a coroutine body's entry runs. */
static void event_framed(ip_file *f, ip_tstate *ts, ip_thread *th, uint32_t code, size_t i) {
  if (i != ts->frame_event) {
    event(f, ts, th, code);
    return;
  }
  ts->event_frame = ts->coro_frame[ts->next_coro_frame + 1];
  ts->next_coro_frame += 2;
  ts->frame_event = ts->next_coro_frame < ts->n_coro_frame
                        ? ts->frame_event + ts->coro_frame[ts->next_coro_frame]
                        : UINT64_MAX;
  event(f, ts, th, code);
  ts->event_frame = 0;
}

/* The pointer calls whose hooks ran in the interval that ends at event i
 * (the entries naming it, or, at the batch's end, any left): taken by that
 * interval, or by the next that ends at a probe. */
static void ptr_calls_upto(ip_tstate *ts, uint64_t i) {
  while (ts->ptr_event <= i) {
    ts->ptr_pending++;
    ts->next_ptr_call++;
    ts->ptr_event = ts->next_ptr_call < ts->n_ptr_calls
                        ? ts->ptr_event + ts->ptr_calls[ts->next_ptr_call]
                        : UINT64_MAX;
  }
}

/* The events i..n-1 of batch b, the clock at tick before them: the batch's
 * loop, inline in one copy for each set of flags rf (ip_replay_batch). */
static inline __attribute__((always_inline)) void
batch_events(ip_file *f, ip_tstate *ts, ip_thread *th, const Inclprof__EventBatch *b, size_t i,
             size_t n, uint64_t tick, int skip, int split, kcursor *kc, const ip_critical *crit,
             rflags rf) {
  uint64_t hwm = ts->hwm;               /* the highest tick so far, in a register */
  int windows = ip_windows_any(f->win); /* recording was off at some time before this batch */
  for (; i < n; i++) {
    uint64_t d = b->dt[i];
    uint32_t code = b->code[i];
    tick += (uint64_t)((int64_t)d >> 1); /* a negative delta wraps back */
    uint64_t raw = 0, from = hwm;        /* the interval (from, tick] */
    if (tick >= hwm) {
      raw = tick - hwm;
      if (__builtin_expect(windows, 0))
        raw -= ip_windows_off_ticks(f->win, hwm, tick);
      hwm = tick;
    } else {
      th->rep.clock_back++;
    }
    if (rf.kev) {
      if (kc->i < kc->n)
        kernel_upto(ts, kc, tick);
      ip_kacc_at_event(&ts->kacc, tick);
      if (ts->kl)
        ip_kline_event(ts->kl, tick);
    }
    if (__builtin_expect(i >= ts->ptr_event, 0))
      ptr_calls_upto(ts, i);
    if (ts->stk.paused || (skip && i == 0)) {
      ts->pending_gap = 0;
      ts->ptr_pending = 0;
      memset(ts->kacc.off, 0, sizeof ts->kacc.off);
      ts->kacc.sys = ts->kacc.pf = 0;
    } else {
      int transitional = (int)(d & 1);
      if (!transitional && rf.kev && ip_kacc_off_cpu_inside(&ts->kacc, raw, f->off_cpu_floor))
        transitional = 1;
      /* without kernel records the accumulator stays empty in the loop */
      uint64_t off_fx = rf.kev ? ip_kacc_off_fx(&ts->kacc) : 0;
      uint64_t el = interval(f, ts, th, raw, transitional,
                             (code & 7) != INCLPROF__EVENT_KIND__EV_SAMPLE, split, off_fx, rf);
      if (crit && tick > from) {
        critical_share(crit, ts, th, from, tick, el);
        ip_critical_times(crit, ts->thread, ts->ct_at, from, tick, ts->origin_ns + ts->el_ns - el,
                          el);
        if (ts->wf_depth)
          ip_whatif_share(crit, ts->thread, &ts->wf_at, from, tick);
      }
    }
    ts->now_tick = tick;
    if (__builtin_expect(i == ts->frame_event, 0))
      event_framed(f, ts, th, code, i);
    else
      event_inline(f, ts, th, code, rf);
  }
  ts->hwm = hwm;
}

/* The loop's copies for an export's call visitor alone, with kernel records
 * (kev) or without: out of ip_replay_batch, whose copies for report keep
 * their registers. */
static __attribute__((noinline)) void batch_visit(ip_file *f, ip_tstate *ts, ip_thread *th,
                                                  const Inclprof__EventBatch *b, size_t i, size_t n,
                                                  uint64_t tick, int skip, int split, kcursor *kc,
                                                  int kev) {
  if (kev)
    batch_events(f, ts, th, b, i, n, tick, skip, split, kc, NULL, (rflags){1, 0, 0, 1});
  else
    batch_events(f, ts, th, b, i, n, tick, skip, split, kc, NULL, (rflags){0, 0, 0, 1});
}

void ip_replay_batch(ip_file *f, ip_tstate *ts, const Inclprof__EventBatch *b) {
  f->fold = folds(f);
  ip_session *s = f->s;
  ip_thread *th = &s->threads[ts->thread];
  size_t n = b->n_dt < b->n_code ? b->n_dt : b->n_code;
  int skip = 0; /* the interval into this batch spans lost or misordered data */
  if (b->seq != ts->next_seq) {
    if (b->seq > ts->next_seq)
      th->batches_lost += b->seq - ts->next_seq;
    skip = 1;
  }
  ts->next_seq = b->seq + 1;
  ts->sample_addr = b->sample_addr;
  ts->n_sample_addr = b->n_sample_addr;
  ts->next_sample = 0;
  ts->coro_frame = b->coroutine_frame;
  ts->n_coro_frame = f->o && f->o->operations ? b->n_coroutine_frame & ~(size_t)1 : 0;
  ts->next_coro_frame = 0;
  ts->frame_event = ts->n_coro_frame ? ts->coro_frame[0] : UINT64_MAX;
  ts->ptr_calls = b->pointer_calls;
  ts->n_ptr_calls = f->ptr_call_fx ? b->n_pointer_calls : 0;
  ts->next_ptr_call = 0;
  ts->ptr_event = ts->n_ptr_calls ? ts->ptr_calls[0] : UINT64_MAX;
  th->batches++;
  th->events += n;
  uint64_t tick = b->base_tick;
  size_t i = 0;
  /* The wait breakdown needs the records of every interval: a batch that
   * lost them (or follows lost data) leaves its intervals unsplit. */
  const ip_process *proc = &s->processes[f->proc];
  int split = proc->kernel_events && !b->kernel_lost && !skip;
  if (proc->kernel_events && b->kernel_lost)
    th->kernel_lost++;
  ts->kacc_known = split;
  if (!split)
    memset(&ts->kacc, 0, sizeof ts->kacc);
  size_t n_futex =
      b->n_kernel_futex < b->n_kernel_futex_op ? b->n_kernel_futex : b->n_kernel_futex_op;
  kcursor kc = {b->kernel_dt,
                0,
                b->n_kernel_dt,
                b->kernel_base_tick,
                b->kernel_wakee,
                0,
                b->n_kernel_wakee,
                b->kernel_futex,
                b->kernel_futex_op,
                0,
                n_futex};
  const ip_critical *crit =
      f->o && f->o->critical && f->o->critical->by_thread ? f->o->critical : NULL;
  if (n && !ts->have_tick) { /* the thread's first event: no interval before it */
    tick += (uint64_t)((int64_t)b->dt[0] >> 1);
    ts->have_tick = 1;
    ts->hwm = tick;
    uint64_t since = tick > f->start_tick ? tick - f->start_tick : 0;
    uint64_t ns = ticks_ns(f, since);
    ts->origin_ns = ns < UINT64_MAX - f->proc_origin_ns ? f->proc_origin_ns + ns : UINT64_MAX;
    th->start_ns = ts->origin_ns;
    ts->first_tick = tick;
    kernel_upto(ts, &kc, tick); /* before the thread's first event: no interval */
    memset(&ts->kacc, 0, sizeof ts->kacc);
    ts->now_tick = tick;
    if (ts->kl)
      ip_kline_event(ts->kl, tick);
    event_framed(f, ts, th, b->code[i], i);
    i++;
  }
  rflags rf = flags_of(f);
  int looking = f->o && (f->o->critical || f->o->latency);
  int plain = !f->visitor && !looking;
  if (looking)
    batch_events(f, ts, th, b, i, n, tick, skip, split, &kc, crit, rf);
  else if (f->visitor && !rf.fold) /* an export's: the visitor only */
    batch_visit(f, ts, th, b, i, n, tick, skip, split, &kc, rf.kev);
  else if (!plain)
    batch_events(f, ts, th, b, i, n, tick, skip, split, &kc, crit, rf);
  else if (rf.kev && rf.fold)
    batch_events(f, ts, th, b, i, n, tick, skip, split, &kc, NULL, (rflags){1, 1, 1, 0});
  else if (rf.kev)
    batch_events(f, ts, th, b, i, n, tick, skip, split, &kc, NULL, (rflags){1, 0, 1, 0});
  else if (rf.fold)
    batch_events(f, ts, th, b, i, n, tick, skip, split, &kc, NULL, (rflags){0, 1, 1, 0});
  else
    batch_events(f, ts, th, b, i, n, tick, skip, split, &kc, NULL, (rflags){0, 0, 1, 0});
  if (ts->ptr_event != UINT64_MAX) /* after the last event: the next batch's first */
    ptr_calls_upto(ts, UINT64_MAX - 1);
  kernel_upto(ts, &kc, UINT64_MAX); /* after the last event: the next interval's */
}

void ip_replay_resume(ip_file *f, ip_tstate *ts, const Inclprof__ThreadState *st) {
  f->fold = folds(f);
  ip_thread *th = &f->s->threads[ts->thread];
  if (!st->has_tick || !st->tick) { /* no event before the segment: it starts at its first */
    ts->next_seq = st->next_seq;
    f->s->processes[f->proc].threads_resumed++;
    return;
  }
  ts->have_tick = 1;
  ts->hwm = st->tick;
  uint64_t since = st->tick > f->start_tick ? st->tick - f->start_tick : 0;
  uint64_t ns = ticks_ns(f, since);
  ts->origin_ns = ns < UINT64_MAX - f->proc_origin_ns ? f->proc_origin_ns + ns : UINT64_MAX;
  th->start_ns = ts->origin_ns;
  ts->first_tick = st->tick;
  ts->now_tick = st->tick;
  for (size_t i = 0; i < st->n_open; i++) {
    size_t depth = ts->stk.depth;
    event(f, ts, th, st->open[i]);
    if (ts->stk.depth > depth) { /* the call began before the kept window */
      top_values(ts, th)->calls--;
      frame_at(ts, ts->stk.depth - 1)->resumed = 1;
    }
  }
  ip_stack_resume(&ts->stk, st->paused, st->call_open,
                  st->expect_ret ? ip_file_func(f, st->expect_ret) : IP_STACK_NO_KEY);
  if (st->has_off_cpu && f->kernel_events) { /* a snapshot's thread, off the CPU at its start */
    memset(&ts->kacc, 0, sizeof ts->kacc);
    ip_kacc_record(&ts->kacc, st->off_cpu, st->tick);
    ts->kacc_known = 1;
  }
  ts->next_seq = st->next_seq;
  f->s->processes[f->proc].threads_resumed++;
}

void ip_replay_gap(ip_file *f, ip_tstate *ts, const Inclprof__Gap *g) {
  ip_thread *th = &f->s->threads[ts->thread];
  th->gaps++;
  if (!(f->o && f->o->raw) && g->end_tick > g->start_tick)
    ts->pending_gap += g->end_tick - g->start_tick;
}

void ip_replay_alive_at_exit(ip_file *f, ip_tstate *ts, uint64_t tick, int transitional) {
  ip_thread *th = &f->s->threads[ts->thread];
  th->alive_at_exit = 1;
  if (!ts->have_tick || ts->stk.paused || tick <= ts->hwm)
    return;
  if (f->kernel_events) /* switched out and never back: off the CPU to the end */
    ip_kacc_at_event(&ts->kacc, tick);
  uint64_t el = interval(f, ts, th, tick - ts->hwm - ip_windows_off_ticks(f->win, ts->hwm, tick),
                         transitional, 0, ts->kacc_known, ip_kacc_off_fx(&ts->kacc), flags_of(f));
  if (f->o && f->o->critical && f->o->critical->by_thread) {
    critical_share(f->o->critical, ts, th, ts->hwm, tick, el);
    ip_critical_times(f->o->critical, ts->thread, ts->ct_at, ts->hwm, tick,
                      ts->origin_ns + ts->el_ns - el, el);
  }
  if (ts->kl)
    ip_kline_event(ts->kl, tick);
  ts->hwm = tick;
}

void ip_replay_finish(ip_file *f, ip_tstate *ts) {
  f->fold = folds(f);
  ip_session *s = f->s;
  ip_thread *th = &s->threads[ts->thread];
  ts->now_tick = ts->hwm;
  while (ts->stk.depth) {
    closed(f, ts, th, --ts->stk.depth, flags_of(f));
    th->rep.closed_at_end++;
  }
  if (ts->kl)
    ip_kline_finish(ts->kl, ts->kl->last);
  if (ts->have_tick && f->o && f->o->critical && f->o->critical->by_thread)
    ip_critical_times_outside(f->o->critical, ts->thread, ts->first_tick, ts->origin_ns, ts->hwm,
                              ts->origin_ns + ts->el_ns, f->ns_per_tick);
  ts->finished = 1;
  th->end_ns = th->start_ns + ts->el_ns;
  th->wall_end_ns = th->start_ns + ticks_ns(f, ts->hwm - ts->first_tick);
  th->probe_removed_ns = ticks_ns(f, ts->probe_removed_fx >> IP_FX);
  th->app_intervals = ts->app_intervals;
  th->dense_intervals = ts->dense_intervals;
  th->repairs = th->rep.popped + th->rep.closed_at_end + th->rep.unmatched;
  ip_thread_sums(s, th);
  if (f->o && !f->o->file_done) /* else once the file is read (ip_file_done) */
    ip_thread_keep(s, th, f->o->keep);
  ip_u64map_free(&ts->child);
  memset(ts->child_hot_key, 0, sizeof ts->child_hot_key);
  free(ts->fold_fn);
  free(ts->fold_mod_open);
  ts->fold_fn = NULL;
  ts->fold_mod_open = NULL;
  ts->n_fold_fn = ts->n_fold_mod = 0;
  ip_pc_index_free(&ts->pcs);
  ip_u64map_free(&ts->site_vals);
  free(ts->stk.frames);
  ip_stack_init(&ts->stk, NULL, sizeof(ip_frame), 0);
}
