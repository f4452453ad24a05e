/* model/operations.c - links the runs of coroutine bodies into operations
 * (model/operations.h).  Per process, every run whose frame is known, in
 * clock order: a run flagged as the start (the ramp's call: the frame's
 * resume index is 0) begins a new operation of its frame, at the ramp's own
 * start when the ramp is its caller; any other run continues the open
 * operation of its frame (or begins one whose start is not in the trace); a
 * run flagged as destroying the frame (an odd resume index: the destroy
 * function's call) ends it, and is no part of it.  An operation ends where
 * its latest run ends: its final suspension, or, for a frame destroyed while
 * suspended, the suspension before that.  Its latency is the time it ran
 * (the ramp's time before the body's first run, and the runs' Elapsed
 * Inclusive, from which the probes' cost is removed like everywhere) plus
 * the time it was suspended (by the clock, between its runs). */
#include <stdlib.h>
#include <string.h>

#include "inclprof_abi.h"
#include "model/operations.h"
#include "util/util.h"

#define BODY_SUFFIX " [coroutine body]"

/* One run of a process, for sorting. */
typedef struct run_ref {
  const ip_coro_run *r;
  uint32_t thread;
} run_ref;

static int by_start(const void *a, const void *b) {
  const run_ref *x = a, *y = b;
  if (x->r->wall_start != y->r->wall_start)
    return x->r->wall_start < y->r->wall_start ? -1 : 1;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  return x->r < y->r ? -1 : x->r > y->r;
}

/* Is the function caller the ramp of the coroutine body body? */
static int is_ramp(const ip_session *s, uint32_t body, uint32_t caller) {
  const char *b = s->funcs[body].pretty, *c = s->funcs[caller].pretty;
  size_t lb = strlen(b), ls = strlen(BODY_SUFFIX), lc = strlen(c);
  return lb == lc + ls && memcmp(b, c, lc) == 0 && strcmp(b + lc, BODY_SUFFIX) == 0;
}

static ip_operation *op_new(ip_operations *o, size_t *cap) {
  ip_must_grow((void **)&o->ops, cap, o->n_ops + 1, sizeof *o->ops);
  ip_operation *op = &o->ops[o->n_ops++];
  memset(op, 0, sizeof *op);
  return op;
}

/* The latest run of an operation being linked, not yet counted. */
typedef struct last_run {
  uint64_t start, end, el, app;
  int closed; /* the frame was destroyed, or made anew */
} last_run;

/* Counts op's latest run l, up to next (the next run's start, or
 * UINT64_MAX).  A run can go on after the coroutine suspended (posted to
 * another thread before its body returns, it is resumed there at once), and
 * that rest is the thread's: the run counts up to the next one's start, and
 * of that time only its Application time (its time on the CPU without the
 * kernel's work, such as a preemption after the coroutine was handed on)
 * as Ran, the rest as Suspended. */
static void count_last(ip_operation *op, const last_run *l, uint64_t next) {
  if (next == UINT64_MAX || next >= l->end) {
    op->ran += l->el;
    if (next != UINT64_MAX)
      op->suspended += next - l->end;
    return;
  }
  uint64_t wall = next > l->start ? next - l->start : 0;
  uint64_t ran = l->app < wall ? l->app : wall;
  op->ran += ran;
  op->suspended += wall - ran;
}

/* The operations of process p's runs refs[0..n), in clock order. */
static void link_process(const ip_session *s, uint32_t p, run_ref *refs, size_t n, ip_operations *o,
                         size_t *cap) {
  qsort(refs, n, sizeof *refs, by_start);
  ip_u64map open = {0}; /* frame -> index into o->ops of its latest operation */
  size_t first = o->n_ops, cap_last = 0;
  last_run *last = NULL; /* per operation of this process */
  for (size_t i = 0; i < n; i++) {
    const ip_coro_run *r = refs[i].r;
    const ip_thread *th = &s->threads[refs[i].thread];
    uint64_t frame = r->frame & ~(uint64_t)INCLPROF_CORO_BITS;
    uint32_t at = ip_u64map_get(&open, frame);
    if (at != UINT32_MAX && last[at - first].closed)
      at = UINT32_MAX;
    if (r->frame & INCLPROF_CORO_DESTROY) {
      if (at != UINT32_MAX)
        last[at - first].closed = 1;
      continue;
    }
    uint32_t func = th->nodes[r->node].func;
    if (at == UINT32_MAX || (r->frame & INCLPROF_CORO_START)) {
      if (at != UINT32_MAX) /* freed by its own final suspension, unseen */
        last[at - first].closed = 1;
      ip_operation *op = op_new(o, cap);
      op->func = func;
      op->process = p;
      op->frame = frame;
      op->wall_start = r->wall_start;
      op->tl_start = r->tl_start;
      op->thread_start = refs[i].thread;
      if (r->frame & INCLPROF_CORO_START) {
        op->start_seen = 1;
        if (r->caller_node != IP_NO_NODE && is_ramp(s, func, th->nodes[r->caller_node].func)) {
          op->wall_start = r->caller_wall;
          op->tl_start = r->caller_tl;
        }
      }
      /* the ramp's time before the body's first run */
      op->ran = r->wall_start > op->wall_start ? r->wall_start - op->wall_start : 0;
      at = (uint32_t)(o->n_ops - 1);
      ip_u64map_put(&open, frame, at);
      ip_must_grow((void **)&last, &cap_last, o->n_ops - first, sizeof *last);
      memset(&last[at - first], 0, sizeof *last);
    }
    ip_operation *op = &o->ops[at];
    last_run *l = &last[at - first];
    if (op->runs)
      count_last(op, l, r->wall_start);
    l->start = r->wall_start;
    l->end = r->wall_end;
    l->el = r->el;
    l->app = r->app;
    op->runs++;
    op->wall_end = r->wall_end;
    op->thread_end = refs[i].thread;
    op->tl_end = r->tl_start + r->el;
  }
  for (size_t i = first; i < o->n_ops; i++)
    count_last(&o->ops[i], &last[i - first], UINT64_MAX);
  ip_u64map_free(&open);
  free(last);
}

static int by_latency(const void *a, const void *b) {
  const ip_coro_ops *x = a, *y = b;
  if (x->latency_ns != y->latency_ns)
    return x->latency_ns > y->latency_ns ? -1 : 1;
  return x->func < y->func ? -1 : x->func > y->func;
}

size_t ip_coroutine_name_len(const char *body) {
  size_t len = strlen(body), ls = strlen(BODY_SUFFIX);
  return len > ls && !strcmp(body + len - ls, BODY_SUFFIX) ? len - ls : len;
}

char *ip_operation_name(const char *body) {
  static const char suffix[] = " [coroutine operation]";
  size_t len = ip_coroutine_name_len(body);
  char *name = ip_must_calloc(len + sizeof suffix, 1);
  memcpy(name, body, len);
  memcpy(name + len, suffix, sizeof suffix);
  return name;
}

void ip_operations_build(const ip_session *s, ip_operations *out) {
  memset(out, 0, sizeof *out);
  size_t cap_ops = 0;
  for (uint32_t p = 0; p < s->n_processes; p++) {
    size_t n = 0;
    for (size_t t = 0; t < s->n_threads; t++)
      if (s->threads[t].process == p)
        n += s->threads[t].n_coro;
    if (!n)
      continue;
    run_ref *refs = ip_must_calloc(n, sizeof *refs);
    size_t k = 0;
    for (size_t t = 0; t < s->n_threads; t++)
      if (s->threads[t].process == p)
        for (size_t j = 0; j < s->threads[t].n_coro; j++)
          refs[k++] = (run_ref){&s->threads[t].coro[j], (uint32_t)t};
    link_process(s, p, refs, n, out, &cap_ops);
    free(refs);
  }
  uint32_t *slot = ip_must_calloc(s->n_funcs + 1, sizeof *slot); /* func -> 1 + by_coro index */
  size_t cap_coro = 0;
  for (size_t i = 0; i < out->n_ops; i++) {
    const ip_operation *op = &out->ops[i];
    if (!slot[op->func]) {
      ip_must_grow((void **)&out->by_coro, &cap_coro, out->n_coro + 1, sizeof *out->by_coro);
      memset(&out->by_coro[out->n_coro], 0, sizeof *out->by_coro);
      out->by_coro[out->n_coro].func = op->func;
      slot[op->func] = (uint32_t)++out->n_coro;
    }
    ip_coro_ops *c = &out->by_coro[slot[op->func] - 1];
    uint64_t latency = op->ran + op->suspended;
    c->n++;
    c->unstarted += !op->start_seen;
    c->runs += op->runs;
    c->latency_ns += latency;
    c->ran_ns += op->ran;
    c->suspended_ns += op->suspended;
    ip_lat_add(&c->latency, latency);
  }
  free(slot);
  qsort(out->by_coro, out->n_coro, sizeof *out->by_coro, by_latency);
  uint64_t body_calls = 0, framed = 0;
  for (size_t t = 0; t < s->n_threads; t++) {
    const ip_thread *th = &s->threads[t];
    for (size_t i = 1; i < th->n_nodes; i++) {
      uint32_t fn = th->nodes[i].func;
      if (fn < s->n_funcs && (s->funcs[fn].flags & INCLPROF_FN_COROUTINE_BODY))
        body_calls += th->nodes[i].v.calls;
    }
    framed += th->n_coro;
  }
  out->runs_without_frame = body_calls > framed ? body_calls - framed : 0;
}

void ip_operations_free(ip_operations *o) {
  free(o->ops);
  for (size_t i = 0; i < o->n_coro; i++)
    ip_lat_free(&o->by_coro[i].latency);
  free(o->by_coro);
  memset(o, 0, sizeof *o);
}
