/* replay.c - replays one thread's events on a shadow stack and attributes
 * every interval between consecutive events as the reference texts define:
 * Elapsed Inclusive to every distinct function on the stack, Elapsed
 * Exclusive to the top, and the same to the Application values when the
 * interval is not transitional (DESIGN.md section 4).
 *
 * Inclusive values cost O(1) per event: the thread keeps running totals of
 * its elapsed time, application time and samples, each frame remembers them
 * at its push, and the difference is added at its pop - to the call path
 * always, to the function and module only for their outermost frame, so a
 * recursive function counts every interval once.  Exclusive values and calls
 * go to the call path only; the function, module and thread sums of them are
 * made once when the thread ends (exclusive time partitions the thread's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "must_alloc.h"

#define NONE UINT32_MAX

ip_tstate *ip_replay_thread(ip_file *f, uint32_t tid) {
  uint32_t i = ip_u64map_get(&f->tid_state, tid);
  if (i != NONE && !f->states[i]->finished)
    return f->states[i];
  ip_tstate *ts = ip_must_calloc(1, sizeof *ts);
  ts->thread = ip_tables_thread(f->s, f->tabs, f->proc, tid);
  ts->expect_ret = NONE;
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

/* Makes the per-function and per-module arrays cover the session's tables. */
static void cover(ip_file *f, ip_tstate *ts, ip_thread *th) {
  size_t nf = f->s->n_funcs, nm = f->s->n_modules, old = th->n_fn;
  ip_must_grow((void **)&th->fn, &th->n_fn, nf, sizeof *th->fn);
  for (size_t i = old; i < th->n_fn; i++)
    th->fn[i].min_call = UINT64_MAX; /* no call yet */
  ip_must_grow((void **)&ts->fn_depth, &ts->n_fn_depth, nf, sizeof *ts->fn_depth);
  ip_must_grow((void **)&th->mod, &th->n_mod, nm, sizeof *th->mod);
  ip_must_grow((void **)&ts->mod_depth, &ts->n_mod_depth, nm, sizeof *ts->mod_depth);
}

static uint32_t child_node(ip_tstate *ts, ip_thread *th, uint32_t parent, uint32_t fn) {
  uint64_t key = (uint64_t)parent << 32 | fn;
  uint32_t n = ip_u64map_get(&ts->child, key);
  if (n != NONE)
    return n;
  /* The capacity is the power of two at or above n_nodes: double it when
   * n_nodes reaches a power of two. */
  if ((th->n_nodes & (th->n_nodes - 1)) == 0)
    th->nodes = ip_must_realloc(th->nodes, th->n_nodes * 2, sizeof *th->nodes);
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

static void push(ip_file *f, ip_tstate *ts, ip_thread *th, uint32_t fn, int from_call) {
  if (fn >= th->n_fn || f->s->funcs[fn].module >= th->n_mod)
    cover(f, ts, th);
  uint32_t parent = ts->depth ? ts->stack[ts->depth - 1].node : 0;
  uint32_t node = child_node(ts, th, parent, fn);
  if (ts->depth == ts->cap) {
    ts->cap = ts->cap ? ts->cap * 2 : 64;
    ts->stack = ip_must_realloc(ts->stack, ts->cap, sizeof *ts->stack);
  }
  uint32_t mod = f->s->funcs[fn].module;
  ip_frame *fr = &ts->stack[ts->depth++];
  fr->func = fn;
  fr->node = node;
  fr->module = mod;
  fr->outer_fn = ts->fn_depth[fn]++ == 0;
  fr->outer_mod = ts->mod_depth[mod]++ == 0;
  fr->from_call = (uint8_t)from_call;
  fr->merged = 0;
  fr->push_el = ts->el_ns;
  fr->push_app = ts->app_ns;
  fr->push_smp = ts->smp;
  th->nodes[node].v.calls++;
}

static void add_call(ip_values *v, uint64_t dur) {
  if (dur < v->min_call)
    v->min_call = dur;
  if (dur > v->max_call)
    v->max_call = dur;
}

/* Pops the top frame; returns whether it was a merged call-site frame. */
static int pop(ip_file *f, ip_tstate *ts, ip_thread *th) {
  ip_frame *fr = &ts->stack[--ts->depth];
  uint64_t el = ts->el_ns - fr->push_el, app = ts->app_ns - fr->push_app;
  uint64_t smp = ts->smp - fr->push_smp;
  ip_values *v = &th->nodes[fr->node].v;
  v->el_incl += el;
  v->app_incl += app;
  v->smp_incl += smp;
  add_call(v, el);
  v = &th->fn[fr->func];
  add_call(v, el);
  if (fr->outer_fn) {
    v->el_incl += el;
    v->app_incl += app;
    v->smp_incl += smp;
  }
  ts->fn_depth[fr->func]--;
  if (fr->outer_mod) {
    v = &th->mod[fr->module];
    v->el_incl += el;
    v->app_incl += app;
    v->smp_incl += smp;
  }
  ts->mod_depth[fr->module]--;
  const ip_call_visitor *vis = f->visitor;
  if (vis)
    vis->on_call(vis->ctx, f->s, th, fr->func, (uint32_t)ts->depth, ts->origin_ns + fr->push_el, el,
                 app);
  return fr->merged;
}

/* Pops down to and including the nearest frame of fn (an exit that skipped
 * frames: longjmp, exceptions).  Returns the popped frame's merged flag, or
 * -1 when fn is not on the stack (the exit is ignored). */
static int pop_to(ip_file *f, ip_tstate *ts, ip_thread *th, uint32_t fn) {
  if (ts->depth && ts->stack[ts->depth - 1].func == fn) /* the usual case */
    return pop(f, ts, th);
  size_t k = ts->depth;
  while (k > 0 && ts->stack[k - 1].func != fn)
    k--;
  if (k == 0) {
    th->rep.unmatched++;
    return -1;
  }
  while (ts->depth > k) {
    pop(f, ts, th);
    th->rep.popped++;
  }
  return pop(f, ts, th);
}

/* Attributes one interval of raw ticks ending at the current event. */
static void interval(ip_file *f, ip_tstate *ts, ip_thread *th, uint64_t raw, int transitional) {
  if (raw > UINT64_MAX >> (IP_FX + 1)) /* centuries: damage, not time */
    raw = 0;
  if (ts->pending_gap) {
    uint64_t g = ts->pending_gap < raw ? ts->pending_gap : raw;
    th->gap_ns += (uint64_t)((double)g * f->ns_per_tick + 0.5);
    ts->pending_gap = 0;
    raw -= g;
  }
  uint64_t x = raw << IP_FX;
  x = x > f->cost_fx ? x - f->cost_fx : 0;
  ts->comp_fx += x;
  /* ns = ticks * ns_per_tick, rounded: (ticks << IP_FX) * (ns/tick << 32) >> (IP_FX + 32) */
  uint64_t now = (uint64_t)(((unsigned __int128)ts->comp_fx * f->ns_per_tick_fx +
                             ((unsigned __int128)1 << (IP_FX + 31))) >> (IP_FX + 32));
  uint64_t el = now - ts->el_ns;
  ts->el_ns = now;
  if (!transitional)
    ts->app_ns += el;
  if (!ts->depth)
    return;
  ip_values *v = &th->nodes[ts->stack[ts->depth - 1].node].v;
  v->el_excl += el;
  v->app_excl += transitional ? 0 : el;
}

static void sample(ip_tstate *ts, ip_thread *th, uint32_t arg, ip_session *s) {
  if (arg & 1) {
    s->samples_in_runtime++;
    return;
  }
  if (!ts->depth) {
    th->samples_outside++;
    return;
  }
  ts->smp++;
  th->nodes[ts->stack[ts->depth - 1].node].v.smp_excl++;
}

static void event(ip_file *f, ip_tstate *ts, ip_thread *th, uint32_t code) {
  uint32_t arg = code >> 3, fn;
  int merged;
  switch ((Inclprof__EventKind)(code & 7)) {
  case INCLPROF__EVENT_KIND__EV_ENTER:
    fn = ip_file_func(f, arg);
    if (ts->call_open && ts->stack[ts->depth - 1].func == fn)
      ts->stack[ts->depth - 1].merged = 1; /* CALL(g) + ENTER(g): one frame */
    else
      push(f, ts, th, fn, 0);
    ts->call_open = 0;
    ts->expect_ret = NONE;
    break;
  case INCLPROF__EVENT_KIND__EV_CALL:
    push(f, ts, th, ip_file_func(f, arg), 1);
    ts->call_open = 1;
    ts->expect_ret = NONE;
    break;
  case INCLPROF__EVENT_KIND__EV_EXIT:
    fn = ip_file_func(f, arg);
    merged = pop_to(f, ts, th, fn);
    ts->call_open = 0;
    ts->expect_ret = merged > 0 ? fn : NONE; /* EXIT(g) + RET(g): one pop */
    break;
  case INCLPROF__EVENT_KIND__EV_RET:
    fn = ip_file_func(f, arg);
    if (ts->expect_ret != fn)
      pop_to(f, ts, th, fn);
    ts->call_open = 0;
    ts->expect_ret = NONE;
    break;
  case INCLPROF__EVENT_KIND__EV_SAMPLE:
    if (!ts->paused)
      sample(ts, th, arg, f->s);
    break;
  case INCLPROF__EVENT_KIND__EV_PAUSE:
    ts->paused = 1;
    break;
  case INCLPROF__EVENT_KIND__EV_RESUME:
    ts->paused = 0;
    break;
  default: /* EV_MARK: a named instant, no change to the stack */
    break;
  }
}

void ip_replay_batch(ip_file *f, ip_tstate *ts, const Inclprof__EventBatch *b) {
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
  th->batches++;
  th->events += n;
  cover(f, ts, th);
  uint64_t tick = b->base_tick;
  for (size_t i = 0; i < n; i++) {
    uint64_t d = b->dt[i];
    tick += (uint64_t)((int64_t)d >> 1); /* a negative delta wraps back */
    if (!ts->have_tick) {
      ts->have_tick = 1;
      ts->hwm = tick;
      uint64_t since = tick > f->start_tick ? tick - f->start_tick : 0;
      ts->origin_ns = f->proc_origin_ns + (uint64_t)((double)since * f->ns_per_tick + 0.5);
      th->start_ns = ts->origin_ns;
    } else {
      uint64_t raw = 0;
      if (tick >= ts->hwm) {
        raw = tick - ts->hwm;
        ts->hwm = tick;
      } else {
        th->rep.clock_back++;
      }
      if (ts->paused || (skip && i == 0))
        ts->pending_gap = 0;
      else
        interval(f, ts, th, raw, (int)(d & 1));
    }
    ts->tick = tick;
    event(f, ts, th, b->code[i]);
  }
}

void ip_replay_gap(ip_file *f, ip_tstate *ts, const Inclprof__Gap *g) {
  ip_thread *th = &f->s->threads[ts->thread];
  th->gaps++;
  if (!(f->o && f->o->raw) && g->end_tick > g->start_tick)
    ts->pending_gap += g->end_tick - g->start_tick;
}

/* Function, module and thread exclusive values and calls: sums over the
 * call paths (each interval and sample went to exactly one path). */
static void sum_exclusive(const ip_session *s, ip_thread *th) {
  for (size_t i = 1; i < th->n_nodes; i++) {
    ip_values *n = &th->nodes[i].v, *v = &th->fn[th->nodes[i].func];
    v->calls += n->calls;
    v->el_excl += n->el_excl;
    v->app_excl += n->app_excl;
    v->smp_excl += n->smp_excl;
    if (n->min_call == UINT64_MAX)
      n->min_call = 0;
  }
  for (size_t i = 0; i < th->n_fn; i++) {
    ip_values *v = &th->fn[i], *m = &th->mod[s->funcs[i].module];
    if (v->min_call == UINT64_MAX)
      v->min_call = 0;
    m->calls += v->calls;
    m->el_excl += v->el_excl;
    m->app_excl += v->app_excl;
    m->smp_excl += v->smp_excl;
    th->total.calls += v->calls;
    th->total.el_excl += v->el_excl;
    th->total.app_excl += v->app_excl;
    th->total.smp_excl += v->smp_excl;
  }
  th->total.el_incl = th->total.el_excl;
  th->total.app_incl = th->total.app_excl;
  th->total.smp_incl = th->total.smp_excl;
}

void ip_replay_finish(ip_file *f, ip_tstate *ts) {
  ip_session *s = f->s;
  ip_thread *th = &s->threads[ts->thread];
  cover(f, ts, th);
  while (ts->depth) {
    pop(f, ts, th);
    th->rep.closed_at_end++;
  }
  ts->finished = 1;
  th->end_ns = th->start_ns + ts->el_ns;
  th->repairs = th->rep.popped + th->rep.closed_at_end + th->rep.unmatched;
  if (th->n_fn > s->n_funcs)
    th->n_fn = s->n_funcs;
  if (th->n_mod > s->n_modules)
    th->n_mod = s->n_modules;
  sum_exclusive(f->s, th);
  free(ts->fn_depth);
  free(ts->mod_depth);
  ts->fn_depth = ts->mod_depth = NULL;
  ts->n_fn_depth = ts->n_mod_depth = 0;
  ip_u64map_free(&ts->child);
  free(ts->stack);
  ts->stack = NULL;
  ts->cap = 0;
}
