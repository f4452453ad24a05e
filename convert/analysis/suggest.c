/* analysis/suggest.c - the probe cost of every function and the greedy choice of
 * the functions to leave uninstrumented (see analysis/suggest.h).
 *
 * A call path (node) is traced when its function is not excluded and either
 * has probes of its own (INSTRUMENTED) or was named at a call site of a
 * traced instrumented caller: excluding a function removes its entry/exit
 * probes and the call-site probes in its body.  A traced call costs two
 * events.  Node indices grow from parent to child, so one forward pass
 * decides tracing and one backward pass sums the traced time below a node. */
#include "analysis/suggest.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "inclprof_abi.h"
#include "util/util.h"

/* Per-thread scratch reused by every evaluation. */
typedef struct scratch {
  uint8_t *traced;
  uint64_t *below; /* traced Elapsed Inclusive directly under the node's untraced frames */
} scratch;

static int instrumented(const ip_session *s, uint32_t f) {
  return (s->funcs[f].flags & INCLPROF_FN_INSTRUMENTED) != 0;
}

static void mark_traced(const ip_session *s, const ip_thread *th, const uint8_t *excluded,
                        uint8_t *traced) {
  traced[0] = 1;
  for (size_t n = 1; n < th->n_nodes; n++) {
    const ip_node *nd = &th->nodes[n];
    uint32_t f = nd->func, p = nd->parent;
    if (excluded[f])
      traced[n] = 0;
    else if (instrumented(s, f) || p == 0)
      traced[n] = 1;
    else
      traced[n] = traced[p] && instrumented(s, th->nodes[p].func);
  }
}

/* Events per function with this exclusion set, into events[n_funcs], and
 * per thread, into per_thread[n_threads]. */
static void count_events(const ip_session *s, const uint8_t *excluded, scratch *sc,
                         uint64_t *events, uint64_t *per_thread) {
  memset(events, 0, s->n_funcs * sizeof *events);
  for (size_t t = 0; t < s->n_threads; t++) {
    const ip_thread *th = &s->threads[t];
    mark_traced(s, th, excluded, sc->traced);
    per_thread[t] = 0;
    for (size_t n = 1; n < th->n_nodes; n++)
      if (sc->traced[n]) {
        events[th->nodes[n].func] += 2 * th->nodes[n].v.calls;
        per_thread[t] += 2 * th->nodes[n].v.calls;
      }
  }
}

/* Untraced time the frames of f would hand to their traced callers if f were
 * excluded too, and the caller getting most of it. */
static uint64_t fold_of(const ip_session *s, uint8_t *excluded, uint32_t f, scratch *sc,
                        uint64_t *by_caller, uint32_t *into) {
  excluded[f] = 1;
  uint64_t total = 0;
  memset(by_caller, 0, s->n_funcs * sizeof *by_caller);
  for (size_t t = 0; t < s->n_threads; t++) {
    const ip_thread *th = &s->threads[t];
    mark_traced(s, th, excluded, sc->traced);
    memset(sc->below, 0, th->n_nodes * sizeof *sc->below);
    for (size_t n = th->n_nodes; n-- > 1;) {
      const ip_node *nd = &th->nodes[n];
      sc->below[nd->parent] += sc->traced[n] ? nd->v.el_incl : sc->below[n];
      if (nd->func != f || !sc->traced[nd->parent] || nd->parent == 0)
        continue;
      uint64_t folded = nd->v.el_incl > sc->below[n] ? nd->v.el_incl - sc->below[n] : 0;
      total += folded;
      by_caller[th->nodes[nd->parent].func] += folded;
    }
  }
  excluded[f] = 0;
  *into = UINT32_MAX;
  for (uint32_t c = 0; c < s->n_funcs; c++)
    if (by_caller[c] && (*into == UINT32_MAX || by_caller[c] > by_caller[*into]))
      *into = c;
  return total;
}

int ip_func_matches(const ip_func *fn, const char *glob) {
  return !fnmatch(glob, fn->name, 0) || !fnmatch(glob, fn->pretty, 0);
}

static int kept_by_name(const ip_session *s, uint32_t f, const ip_suggest_opts *o) {
  for (size_t k = 0; k < o->n_keep; k++)
    if (ip_func_matches(&s->funcs[f], o->keep[k]))
      return 1;
  return 0;
}

double ip_suggest_pct(const ip_suggest *g, uint64_t events) {
  return g->session_ns ? 100.0 * (double)events * g->probe_cost_ns / (double)g->session_ns : 0;
}

int ip_suggest_thread_counts(const ip_suggest *g, const ip_suggest_thread *t) {
  return (double)t->events_before * g->probe_cost_ns >=
         IP_SUGGEST_MIN_GAIN_PCT / 100.0 * (double)g->wall_ns;
}

double ip_suggest_thread_pct(const ip_suggest *g, const ip_suggest_thread *t, uint64_t events) {
  return t->cpu_ns ? 100.0 * (double)events * g->probe_cost_ns / (double)t->cpu_ns : 0;
}

double ip_suggest_worst_pct(const ip_suggest *g, int after) {
  double worst = 0;
  for (size_t i = 0; i < g->n_threads; i++) {
    const ip_suggest_thread *t = &g->threads[i];
    double p = ip_suggest_thread_pct(g, t, after ? t->events_after : t->events_before);
    if (ip_suggest_thread_counts(g, t))
      worst = p > worst ? p : worst;
  }
  return worst;
}

/* The threads' events now, and the most slowed thread's share. */
static double worst_now(ip_suggest *g, const uint64_t *per_thread) {
  double worst = 0;
  for (size_t i = 0; i < g->n_threads; i++) {
    double p = ip_suggest_thread_pct(g, &g->threads[i], per_thread[g->threads[i].thread]);
    if (ip_suggest_thread_counts(g, &g->threads[i]))
      worst = p > worst ? p : worst;
  }
  return worst;
}

static int compare_threads(const void *pa, const void *pb, void *pc) {
  const ip_suggest_thread *a = pa, *b = pb;
  const ip_suggest *g = pc;
  if (ip_suggest_thread_counts(g, a) != ip_suggest_thread_counts(g, b))
    return ip_suggest_thread_counts(g, a) ? -1 : 1;
  double x = ip_suggest_thread_pct(g, a, a->events_before);
  double y = ip_suggest_thread_pct(g, b, b->events_before);
  if (x != y)
    return x < y ? 1 : -1;
  return (a->thread > b->thread) - (a->thread < b->thread);
}

typedef struct order_ctx {
  int by_distortion; /* else by events before */
} order_ctx;

/* A function's Elapsed Inclusive less its waits off the CPU: what its probes
 * add to, on a busy machine as on a quiet one (its Elapsed time also holds
 * the waits for a CPU, which grow with the machine's load). */
static uint64_t on_cpu(const ip_values *v) {
  uint64_t off = v->wait_incl[IP_W_PREEMPTED] + v->wait_incl[IP_W_BLOCKED];
  return v->el_incl > off ? v->el_incl - off : 0;
}

static double distortion(const ip_suggest_fn *x) {
  return x->cpu_incl ? (double)x->events_before / (double)x->cpu_incl : 1e300;
}

static int compare_fns(const void *pa, const void *pb, void *pc) {
  const ip_suggest_fn *a = pa, *b = pb;
  const order_ctx *c = pc;
  if (c->by_distortion && distortion(a) != distortion(b))
    return distortion(a) < distortion(b) ? 1 : -1;
  if (a->events_before != b->events_before)
    return a->events_before < b->events_before ? 1 : -1;
  return (a->func > b->func) - (a->func < b->func);
}

static void session_costs(const ip_session *s, ip_suggest *g) {
  double cost = 0, bytes = 0, events = 0;
  for (size_t i = 0; i < s->n_processes; i++) {
    const ip_process *p = &s->processes[i];
    cost += p->probe_cost_ns * (double)p->events;
    bytes += (double)p->bytes_written;
    events += (double)p->events;
  }
  g->probe_cost_ns = events > 0 ? cost / events : 0;
  g->bytes_per_event = events > 0 ? bytes / events : 0;
  g->session_ns = s->total.el_incl;
}

/* The thread a fork child began with: its trace starts inside the frames
 * its parent had open at the fork, so the functions it enters first are
 * callees of those frames, not its outermost functions. */
static int fork_child_thread(const ip_session *s, const ip_thread *th) {
  const ip_process *p = th->process < s->n_processes ? &s->processes[th->process] : NULL;
  return p && p->forked_from && th->tid == p->pid;
}

void ip_suggest_run(const ip_session *s, const ip_suggest_opts *o, ip_suggest *g) {
  memset(g, 0, sizeof *g);
  session_costs(s, g);
  size_t nf = s->n_funcs ? s->n_funcs : 1, max_nodes = 1;
  for (size_t t = 0; t < s->n_threads; t++)
    if (s->threads[t].n_nodes > max_nodes)
      max_nodes = s->threads[t].n_nodes;
  scratch sc = {ip_must_calloc(max_nodes, 1), ip_must_calloc(max_nodes, sizeof(uint64_t))};
  uint8_t *excluded = ip_must_calloc(nf, 1), *root = ip_must_calloc(nf, 1);
  uint64_t *events = ip_must_calloc(nf, sizeof *events), *tmp = ip_must_calloc(nf, sizeof *tmp);
  uint64_t *per_thread = ip_must_calloc(s->n_threads ? s->n_threads : 1, sizeof *per_thread);
  ip_values *sum = ip_must_calloc(nf, sizeof *sum);
  for (size_t t = 0; t < s->n_threads; t++) {
    const ip_thread *th = &s->threads[t];
    for (size_t f = 0; f < th->n_fn; f++)
      ip_values_add(&sum[th->fn[f].func], &th->fn[f].v);
    if (fork_child_thread(s, th))
      continue;
    for (uint32_t c = th->n_nodes ? th->nodes[0].first_child : IP_NO_NODE; c != IP_NO_NODE;
         c = th->nodes[c].next_sibling)
      root[th->nodes[c].func] = 1;
  }
  count_events(s, excluded, &sc, events, per_thread);
  g->threads = ip_must_calloc(s->n_threads ? s->n_threads : 1, sizeof *g->threads);
  uint64_t first = UINT64_MAX, last = 0;
  for (size_t t = 0; t < s->n_threads; t++) {
    const ip_thread *th = &s->threads[t];
    g->threads[g->n_threads++] =
        (ip_suggest_thread){(uint32_t)t, th->total.app_incl, per_thread[t], 0};
    first = th->start_ns < first ? th->start_ns : first;
    last = th->end_ns > last ? th->end_ns : last;
  }
  g->wall_ns = last > first ? last - first : 0;
  g->fns = ip_must_calloc(nf, sizeof *g->fns);
  for (uint32_t f = 0; f < s->n_funcs; f++) {
    if (!sum[f].calls)
      continue;
    ip_suggest_fn *x = &g->fns[g->n++];
    x->func = f;
    x->calls = sum[f].calls;
    x->cpu_incl = on_cpu(&sum[f]);
    x->events_before = events[f];
    x->fold_into = UINT32_MAX;
    g->events_before += events[f];
    x->verdict = root[f] || !strcmp(s->funcs[f].name, "main") ? IP_KEEP_ROOT
                 : kept_by_name(s, f, o)                      ? IP_KEEP_NAMED
                                                              : IP_KEEP_UNDER;
  }
  order_ctx oc = {1};
  qsort_r(g->fns, g->n, sizeof *g->fns, compare_fns, &oc);
  uint64_t now = g->events_before;
  double worst = worst_now(g, per_thread);
  for (size_t i = 0; i < g->n; i++) {
    ip_suggest_fn *x = &g->fns[i];
    if (x->verdict != IP_KEEP_UNDER || !x->events_before || worst <= o->max_overhead_pct)
      continue;
    if (x->cpu_incl && 100.0 * (double)x->events_before * g->probe_cost_ns / (double)x->cpu_incl <
                           o->max_overhead_pct) {
      x->verdict = IP_KEEP_FAIR;
      continue;
    }
    if (ip_suggest_pct(g, x->events_before) < IP_SUGGEST_MIN_GAIN_PCT) {
      x->verdict = IP_KEEP_CHEAP;
      continue;
    }
    x->fold_ns = fold_of(s, excluded, x->func, &sc, tmp, &x->fold_into);
    if (g->session_ns && 100.0 * (double)x->fold_ns / (double)g->session_ns > o->max_fold_pct) {
      x->verdict = IP_KEEP_FOLD;
      continue;
    }
    x->verdict = IP_EXCLUDE;
    excluded[x->func] = 1;
    g->n_excluded++;
    count_events(s, excluded, &sc, events, per_thread);
    now = 0;
    for (uint32_t f = 0; f < s->n_funcs; f++)
      now += events[f];
    worst = worst_now(g, per_thread);
  }
  g->events_after = now;
  for (size_t i = 0; i < g->n_threads; i++)
    g->threads[i].events_after = per_thread[g->threads[i].thread];
  qsort_r(g->threads, g->n_threads, sizeof *g->threads, compare_threads, g);
  for (size_t i = 0; i < g->n; i++)
    g->fns[i].events_after = events[g->fns[i].func];
  oc.by_distortion = 0;
  qsort_r(g->fns, g->n, sizeof *g->fns, compare_fns, &oc);
  free(sc.traced);
  free(sc.below);
  free(excluded);
  free(root);
  free(events);
  free(per_thread);
  free(tmp);
  free(sum);
}

void ip_suggest_free(ip_suggest *g) {
  free(g->fns);
  free(g->threads);
  memset(g, 0, sizeof *g);
}
