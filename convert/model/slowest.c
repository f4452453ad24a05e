/* model/slowest.c - the N slowest calls of a function and the calls made
 * inside each (see model/slowest.h). */
#include "model/slowest.h"

#include <stdlib.h>
#include <string.h>

#include "model/selection.h"

static int is_fn(ip_slowest *w, const ip_session *s, uint32_t func) {
  if (func >= w->n_match) {
    size_t n = s->n_funcs > func ? s->n_funcs : (size_t)func + 1;
    w->match = ip_must_realloc(w->match, n, 1);
    memset(w->match + w->n_match, 0, n - w->n_match);
    w->n_match = n;
  }
  if (!w->match[func])
    w->match[func] = 1 + (func < s->n_funcs && ip_func_named(&s->funcs[func], w->fn));
  return w->match[func] == 2;
}

static uint64_t rank_of(const ip_slowest *w, uint64_t el, uint64_t app) {
  return w->by_app ? app : el;
}

/* First replay: keep the call when it is among the `want` longest so far
 * (an earlier call wins a tie). */
static void keep_if_slow(ip_slowest *w, const ip_session *s, const ip_thread *t, uint32_t depth,
                         uint64_t start, uint64_t el, uint64_t app) {
  size_t at = w->n;
  if (w->n == w->want) {
    at = 0;
    for (size_t i = 1; i < w->n; i++)
      if (rank_of(w, w->calls[i].el_ns, w->calls[i].app_ns) <
          rank_of(w, w->calls[at].el_ns, w->calls[at].app_ns))
        at = i;
    if (rank_of(w, el, app) <= rank_of(w, w->calls[at].el_ns, w->calls[at].app_ns))
      return;
  } else {
    w->n++;
  }
  ip_slow_call *c = &w->calls[at];
  memset(c, 0, sizeof *c);
  c->thread = (uint32_t)(t - s->threads);
  c->depth = depth;
  c->node = IP_NO_NODE;
  c->start_ns = start;
  c->el_ns = el;
  c->app_ns = app;
  memcpy(c->wait, t->call_wait, sizeof c->wait);
}

/* Second replay: a call inside slow call c is summed into its call path. */
static void add_inner(ip_slow_call *c, const ip_thread *t, uint64_t el, uint64_t app) {
  uint32_t k = ip_u64map_get(&c->inner, t->call_node);
  if (k == UINT32_MAX) {
    ip_must_grow((void **)&c->inner_v, &c->cap_inner, c->n_inner + 1, sizeof *c->inner_v);
    c->inner_node = ip_must_realloc(c->inner_node, c->cap_inner, sizeof *c->inner_node);
    k = (uint32_t)c->n_inner++;
    memset(&c->inner_v[k], 0, sizeof c->inner_v[k]);
    c->inner_node[k] = t->call_node;
    ip_u64map_put(&c->inner, t->call_node, k);
  }
  ip_values *v = &c->inner_v[k];
  v->calls++;
  v->el_incl += el;
  v->app_incl += app;
  for (int i = 0; i < IP_WAIT_N; i++)
    v->wait_incl[i] += t->call_wait[i];
}

static void on_call(void *ctx, const ip_session *s, const ip_thread *t, uint32_t func,
                    uint32_t depth, uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns) {
  ip_slowest *w = ctx;
  if (!w->second) {
    if (is_fn(w, s, func) && !t->call_partial) { /* a call the trace holds whole */
      w->fn_calls++;
      keep_if_slow(w, s, t, depth, start_ns, dur_ns, app_ns);
    }
    return;
  }
  size_t ti = (size_t)(t - s->threads);
  if (ti >= w->n_on_thread || !w->on_thread[ti])
    return;
  for (size_t i = 0; i < w->n; i++) {
    ip_slow_call *c = &w->calls[i];
    if (c->thread != ti || start_ns < c->start_ns || start_ns + dur_ns > c->start_ns + c->el_ns)
      continue;
    if (depth > c->depth)
      add_inner(c, t, dur_ns, app_ns);
    else if (depth == c->depth && start_ns == c->start_ns && dur_ns == c->el_ns &&
             is_fn(w, s, func))
      c->node = t->call_node;
  }
}

void ip_slowest_init(ip_slowest *w, const char *fn, size_t want, int by_app) {
  memset(w, 0, sizeof *w);
  w->fn = fn;
  w->want = want ? want : 1;
  w->by_app = by_app;
  w->calls = ip_must_calloc(w->want, sizeof *w->calls);
  w->visitor.ctx = w;
  w->visitor.on_call = on_call;
}

const ip_call_visitor *ip_slowest_visitor(ip_slowest *w) { return &w->visitor; }

static int longest_first(const void *a, const void *b, void *ctx) {
  const ip_slowest *w = ctx;
  const ip_slow_call *x = a, *y = b;
  uint64_t rx = rank_of(w, x->el_ns, x->app_ns), ry = rank_of(w, y->el_ns, y->app_ns);
  if (rx != ry)
    return rx < ry ? 1 : -1;
  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  return (x->thread > y->thread) - (x->thread < y->thread);
}

size_t ip_slowest_found(ip_slowest *w) {
  qsort_r(w->calls, w->n, sizeof *w->calls, longest_first, w);
  for (size_t i = 0; i < w->n; i++) {
    uint32_t t = w->calls[i].thread;
    if (t >= w->n_on_thread) {
      w->on_thread = ip_must_realloc(w->on_thread, (size_t)t + 1, 1);
      memset(w->on_thread + w->n_on_thread, 0, (size_t)t + 1 - w->n_on_thread);
      w->n_on_thread = (size_t)t + 1;
    }
    w->on_thread[t] = 1;
  }
  memset(w->match, 0, w->n_match); /* the second replay's session is another one */
  w->second = 1;
  return w->n;
}

void ip_slowest_free(ip_slowest *w) {
  for (size_t i = 0; i < w->n; i++) {
    ip_u64map_free(&w->calls[i].inner);
    free(w->calls[i].inner_v);
    free(w->calls[i].inner_node);
  }
  free(w->calls);
  free(w->match);
  free(w->on_thread);
  memset(w, 0, sizeof *w);
}
