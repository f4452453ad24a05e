/* model/thread_sums.c - a finished thread's per-function, per-module and thread
 * values, derived from its call tree in one walk:
 *   - exclusive values, calls and per-call min/max: sums (min/max) over the
 *     function's paths, since every interval, sample and call went to
 *     exactly one path;
 *   - inclusive values: sums over the function's outermost paths only (those
 *     with no ancestor of the same function), so a recursive function counts
 *     each interval once; modules likewise with "any function of the module";
 *   - the thread's values: its non-empty-stack time, the sum of exclusives.
 * The function values are kept for the functions on the thread's paths only
 * (sorted by function), so a thread costs memory by its own call paths, not
 * by the session's function count. */
#include <stdlib.h>
#include <string.h>

#include "inclprof_abi.h"
#include "model/latency.h"
#include "model/loader.h"
#include "util/util.h"

typedef struct walk {
  const ip_session *s;
  ip_thread *th;
  uint32_t *slot;               /* func -> index into th->fn */
  uint32_t *fn_open, *mod_open; /* open paths per th->fn entry / module on the walk */
} walk;

static void add_exclusive(ip_values *to, const ip_values *v) {
  to->calls += v->calls;
  to->el_excl += v->el_excl;
  to->app_excl += v->app_excl;
  to->smp_excl += v->smp_excl;
  to->crit_excl += v->crit_excl;
  for (int k = 0; k < IP_WAIT_N; k++)
    to->wait_excl[k] += v->wait_excl[k];
}

static void add_inclusive(ip_values *to, const ip_values *v) {
  to->el_incl += v->el_incl;
  to->app_incl += v->app_incl;
  to->smp_incl += v->smp_incl;
  to->crit_incl += v->crit_incl;
  for (int k = 0; k < IP_WAIT_N; k++)
    to->wait_incl[k] += v->wait_incl[k];
}

static void enter(walk *w, uint32_t n) {
  const ip_node *nd = &w->th->nodes[n];
  uint32_t f = w->slot[nd->func], m = w->s->funcs[nd->func].module;
  ip_values *fv = &w->th->fn[f].v, *mv = &w->th->mod[m];
  if (!fv->calls || nd->v.min_call < fv->min_call)
    fv->min_call = nd->v.min_call;
  if (nd->v.max_call > fv->max_call)
    fv->max_call = nd->v.max_call;
  add_exclusive(fv, &nd->v);
  add_exclusive(mv, &nd->v);
  add_exclusive(&w->th->total, &nd->v);
  if (w->fn_open[f]++ == 0)
    add_inclusive(fv, &nd->v);
  if (w->mod_open[m]++ == 0 && !w->th->folded) /* folded: the replay summed them */
    add_inclusive(mv, &nd->v);
}

static void leave(walk *w, uint32_t n) {
  uint32_t f = w->th->nodes[n].func;
  w->fn_open[w->slot[f]]--;
  w->mod_open[w->s->funcs[f].module]--;
}

/* The per-path distributions of th, merged per function (th->fn_lat,
 * indexed like th->fn); th->lat freed. */
static void latency_by_function(ip_thread *th) {
  if (th->lat_per_func) { /* kept by function already: taken in th->fn's order */
    th->fn_lat = ip_must_calloc(th->n_fn + 1, sizeof *th->fn_lat);
    for (size_t i = 0; i < th->n_fn; i++)
      if (th->fn[i].func < th->n_lat_by_func) {
        th->fn_lat[i] = th->lat_by_func[th->fn[i].func];
        memset(&th->lat_by_func[th->fn[i].func], 0, sizeof *th->lat_by_func);
      }
    ip_lat_free_all(th->lat_by_func, th->n_lat_by_func);
    th->lat_by_func = NULL;
    th->n_lat_by_func = 0;
    th->lat_per_func = 0;
    return;
  }
  if (!th->lat)
    return;
  th->fn_lat = ip_must_calloc(th->n_fn + 1, sizeof *th->fn_lat);
  for (size_t n = 1; n < th->n_nodes; n++) {
    size_t lo = 0, hi = th->n_fn; /* th->fn is sorted by func */
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (th->fn[mid].func < th->nodes[n].func)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < th->n_fn && th->fn[lo].func == th->nodes[n].func) {
      ip_lat_merge(&th->fn_lat[lo].el, &th->lat[n].el);
      ip_lat_merge(&th->fn_lat[lo].app, &th->lat[n].app);
    }
  }
  ip_lat_free_all(th->lat, th->n_nodes);
  th->lat = NULL;
}

static void drop_paths(ip_thread *th) {
  latency_by_function(th);
  if (!th->nodes)
    return;
  ip_node root = th->nodes[0];
  root.first_child = IP_NO_NODE;
  free(th->nodes);
  th->nodes = ip_must_calloc(1, sizeof *th->nodes);
  th->nodes[0] = root;
  th->n_nodes = 1;
  free(th->pcs);
  th->pcs = NULL;
  th->n_pcs = th->cap_pcs = 0;
  free(th->sites);
  th->sites = NULL;
  th->n_sites = th->cap_sites = 0;
}

/* Adds n values v (of func / module k) into *sums, grown to cover `need`. */
static void fold(ip_values **sums, size_t *n_sums, size_t need, const ip_values *v, size_t k) {
  if (need > *n_sums) {
    size_t old = *n_sums;
    ip_must_grow((void **)sums, n_sums, need, sizeof **sums);
    memset(*sums + old, 0, (*n_sums - old) * sizeof **sums);
  }
  ip_values_add(&(*sums)[k], v);
}

/* A thread that ran a coroutine body keeps its call tree whatever the load
 * keeps: the coroutines' operations (model/operations.c) follow its runs by
 * their call paths and count its bodies' calls on them. */
static int ran_coroutines(const ip_session *s, const ip_thread *th) {
  if (th->n_coro)
    return 1;
  for (size_t i = 1; i < th->n_nodes; i++)
    if (th->nodes[i].func < s->n_funcs &&
        (s->funcs[th->nodes[i].func].flags & INCLPROF_FN_COROUTINE_BODY))
      return 1;
  return 0;
}

void ip_thread_keep(ip_session *s, ip_thread *th, ip_keep keep) {
  if (th->lat_per_func)
    latency_by_function(th);
  if (keep == IP_KEEP_PATHS || ran_coroutines(s, th))
    return;
  drop_paths(th);
  free(th->fold_mod);
  th->fold_mod = NULL;
  th->n_fold_mod = 0;
  if (keep != IP_KEEP_TOTALS)
    return;
  for (size_t i = 0; i < th->n_fn; i++)
    fold(&s->fn_sums, &s->n_fn_sums, s->n_funcs, &th->fn[i].v, th->fn[i].func);
  for (size_t m = 0; m < th->n_mod; m++)
    fold(&s->mod_sums, &s->n_mod_sums, s->n_modules, &th->mod[m], m);
  if (th->fn_lat) {
    if (s->n_funcs > s->n_lat_sums) {
      size_t old = s->n_lat_sums;
      ip_must_grow((void **)&s->lat_sums, &s->n_lat_sums, s->n_funcs, sizeof *s->lat_sums);
      memset(s->lat_sums + old, 0, (s->n_lat_sums - old) * sizeof *s->lat_sums);
    }
    for (size_t i = 0; i < th->n_fn; i++) {
      ip_lat_merge(&s->lat_sums[th->fn[i].func].el, &th->fn_lat[i].el);
      ip_lat_merge(&s->lat_sums[th->fn[i].func].app, &th->fn_lat[i].app);
    }
    ip_lat_free_all(th->fn_lat, th->n_fn);
    th->fn_lat = NULL;
  }
  free(th->fn);
  free(th->mod);
  th->fn = NULL;
  th->mod = NULL;
  th->n_fn = th->n_mod = 0;
  s->sums_folded = 1;
}

void ip_thread_sums(const ip_session *s, ip_thread *th) {
  const ip_node *nodes = th->nodes;
  size_t max_func = 0;
  for (size_t i = 1; i < th->n_nodes; i++)
    if (nodes[i].func >= max_func)
      max_func = (size_t)nodes[i].func + 1;
  uint8_t *on_path = ip_must_calloc(max_func + 1, 1);
  size_t nf = 0;
  for (size_t i = 1; i < th->n_nodes; i++)
    if (!on_path[nodes[i].func]) {
      on_path[nodes[i].func] = 1;
      nf++;
    }
  walk w = {s, th, ip_must_calloc(max_func + 1, sizeof(uint32_t)),
            ip_must_calloc(nf + 1, sizeof(uint32_t)), NULL};
  th->n_fn = nf;
  th->fn = ip_must_calloc(nf + 1, sizeof *th->fn);
  for (size_t f = 0, k = 0; f < max_func; f++)
    if (on_path[f]) {
      w.slot[f] = (uint32_t)k;
      th->fn[k++].func = (uint32_t)f;
    }
  free(on_path);
  th->n_mod = th->n_nodes > 1 ? s->n_modules : 0;
  th->mod = ip_must_calloc(th->n_mod, sizeof *th->mod);
  w.mod_open = ip_must_calloc(th->n_mod, sizeof(uint32_t));
  memset(&th->total, 0, sizeof th->total);
  /* Depth-first, without recursion (call trees can be deep). */
  uint32_t n = nodes[0].first_child;
  while (n != IP_NO_NODE) {
    enter(&w, n);
    if (nodes[n].first_child != IP_NO_NODE) {
      n = nodes[n].first_child;
      continue;
    }
    for (;;) {
      leave(&w, n);
      if (nodes[n].next_sibling != IP_NO_NODE) {
        n = nodes[n].next_sibling;
        break;
      }
      n = nodes[n].parent;
      if (n == 0) {
        n = IP_NO_NODE;
        break;
      }
    }
  }
  for (size_t m = 0; m < th->n_fold_mod && m < th->n_mod; m++)
    add_inclusive(&th->mod[m], &th->fold_mod[m]);
  th->total.el_incl = th->total.el_excl;
  th->total.app_incl = th->total.app_excl;
  th->total.smp_incl = th->total.smp_excl;
  th->total.crit_incl = th->total.crit_excl;
  memcpy(th->total.wait_incl, th->total.wait_excl, sizeof th->total.wait_incl);
  free(w.slot);
  free(w.fn_open);
  free(w.mod_open);
}
