/* model/what_if.c - `report --what-if FUNCTION=FACTOR`: the run replayed in
 * time with FUNCTION's running time FACTOR times shorter.  Each thread's
 * timeline is cut at its switches, its wake-ups of others, its start and
 * end; the second replay gives each stretch between two cuts the time
 * FUNCTION was on the thread's stack in it (ticks).  Then, in the observed
 * order of the cuts: a stretch running or preempted takes its length less
 * what FUNCTION saves in it (a thread keeps its share of the CPU: the
 * preemption inside a function shrinks with its work); a sleep with no
 * traced waker keeps its length; a sleep a traced thread ended ends when its waker reaches
 * the wake-up in the new time, plus the observed delay until the sleeper
 * ran, or at once when the sleeper falls asleep later than that; a thread
 * starts when its creator reaches its creation, plus the observed delay.
 * The longest path through the stretches (program order and wake edges)
 * gives the root's new end.  An estimate: the observed order of wake-ups
 * and the machine's load are kept. */
#include <stdlib.h>
#include <string.h>

#include "model/critical.h"
#include "model/profile.h"
#include "util/util.h"

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The cuts of one thread: sorted, unique. */
static void cuts_of(const ip_kline *k, ip_whatif_line *w) {
  size_t n = 3 + 2 * k->n_off + k->n_wake;
  w->cut = ip_must_calloc(n, sizeof *w->cut);
  size_t m = 0;
  w->cut[m++] = k->first;
  w->cut[m++] = k->end > k->last ? k->end : k->last;
  for (size_t i = 0; i < k->n_off; i++) {
    w->cut[m++] = k->off[i].out;
    w->cut[m++] = k->off[i].in;
  }
  for (size_t i = 0; i < k->n_wake; i++)
    w->cut[m++] = k->wake[i].tick;
  qsort(w->cut, m, sizeof *w->cut, cmp_u64);
  size_t u = 0;
  for (size_t i = 0; i < m; i++)
    if (w->cut[i] >= k->first && (!u || w->cut[i] != w->cut[u - 1]))
      w->cut[u++] = w->cut[i];
  w->n = u;
  w->f = ip_must_calloc(u + 1, sizeof *w->f);
}

int ip_whatif_prepare(const ip_session *s, ip_critical *c) {
  c->whatif_target = ip_must_calloc(s->n_funcs + 1, 1);
  c->n_whatif_target = s->n_funcs;
  int found = 0;
  for (size_t i = 0; i < s->n_funcs; i++)
    if ((s->funcs[i].pretty && !strcmp(s->funcs[i].pretty, c->what_if)) ||
        (s->funcs[i].name && !strcmp(s->funcs[i].name, c->what_if)))
      c->whatif_target[i] = found = 1;
  c->whatif = ip_must_calloc(c->n_klines + 1, sizeof *c->whatif);
  for (size_t i = 0; i < c->n_klines; i++)
    if (c->klines[i] && c->klines[i]->last)
      cuts_of(c->klines[i], &c->whatif[i]);
  return found ? 0 : -1;
}

void ip_whatif_share(const ip_critical *c, uint32_t thread, size_t *at, uint64_t a, uint64_t b) {
  if (thread >= c->n_klines || !c->whatif[thread].n)
    return;
  const ip_whatif_line *w = &c->whatif[thread];
  while (*at + 1 < w->n && w->cut[*at + 1] <= a)
    (*at)++;
  for (size_t i = *at; i + 1 < w->n && w->cut[i] < b; i++) {
    uint64_t from = w->cut[i] > a ? w->cut[i] : a, to = w->cut[i + 1] < b ? w->cut[i + 1] : b;
    if (to > from)
      w->f[i] += to - from;
  }
}

/* One thread during the simulation: new[i] is the new time of cut i. */
typedef struct sim_line {
  const ip_kline *k;
  const ip_whatif_line *w;
  double *new_t;
  size_t done; /* cuts whose new time is known */
} sim_line;

static int asleep(const ip_kline *k, uint64_t from, uint64_t to);

/* The new time of old tick t on a thread whose cuts up to t are known. */
static double new_at(const sim_line *l, uint64_t t, double factor) {
  const ip_whatif_line *w = l->w;
  size_t lo = 0, hi = l->done; /* the last known cut at or before t */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (w->cut[mid] <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (!lo)
    return (double)t; /* before the thread's first cut: as observed */
  size_t j = lo - 1;
  double d = (double)(t - w->cut[j]);
  if (j + 1 < w->n && w->cut[j + 1] > w->cut[j] &&
      !asleep(l->k, w->cut[j], w->cut[j + 1])) { /* part of the stretch's saving */
    double len = (double)(w->cut[j + 1] - w->cut[j]);
    d -= (double)w->f[j] * (1.0 - 1.0 / factor) * (d / len);
  }
  return l->new_t[j] + d;
}

/* The off-CPU time of k that ends at tick in, or NULL. */
static const ip_offcpu *off_ending(const ip_kline *k, uint64_t in) {
  size_t lo = 0, hi = k->n_off;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (k->off[mid].in < in)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < k->n_off && k->off[lo].in == in ? &k->off[lo] : NULL;
}

/* Whether (from, to] lies inside a sleep of k. */
static int asleep(const ip_kline *k, uint64_t from, uint64_t to) {
  size_t lo = 0, hi = k->n_off; /* the first off with in >= to */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (k->off[mid].in < to)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < k->n_off && k->off[lo].out <= from && k->off[lo].blocked;
}

typedef struct cut_ref {
  uint64_t tick;
  uint32_t line, i;
} cut_ref;

static int cmp_ref(const void *a, const void *b) {
  const cut_ref *x = a, *y = b;
  if (x->tick != y->tick)
    return x->tick < y->tick ? -1 : 1;
  return x->line != y->line ? (x->line < y->line ? -1 : 1) : (x->i > y->i) - (x->i < y->i);
}

/* One process: its threads' lines (session indexes idx[0..n)), the root. */
static double simulate(const ip_critical *c, const uint32_t *idx, size_t n, size_t root,
                       double factor) {
  sim_line *l = ip_must_calloc(n, sizeof *l);
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    l[i].k = c->klines[idx[i]];
    l[i].w = &c->whatif[idx[i]];
    l[i].new_t = ip_must_calloc(l[i].w->n + 1, sizeof *l[i].new_t);
    total += l[i].w->n;
  }
  cut_ref *order = ip_must_calloc(total + 1, sizeof *order);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < l[i].w->n; j++)
      order[m++] = (cut_ref){l[i].w->cut[j], (uint32_t)i, (uint32_t)j};
  qsort(order, m, sizeof *order, cmp_ref);
  for (size_t r = 0; r < m; r++) {
    sim_line *x = &l[order[r].line];
    const ip_whatif_line *w = x->w;
    size_t i = order[r].i;
    uint64_t t = w->cut[i];
    double at;
    if (!i) { /* the thread's start */
      const ip_kline *k = x->k;
      at = (double)t;
      if (k->creator != IP_NO_THREAD && k->creator < n && k->created <= t)
        at = new_at(&l[k->creator], k->created, factor) + (double)(t - k->created);
    } else {
      uint64_t from = w->cut[i - 1], len = t - from;
      at = x->new_t[i - 1] + (double)len;
      if (!asleep(x->k, from, t)) /* running or preempted: FUNCTION's share shrinks */
        at -= (double)w->f[i - 1] * (1.0 - 1.0 / factor);
      const ip_offcpu *o = off_ending(x->k, t);
      if (o && o->blocked && o->waker != IP_NO_THREAD && o->waker < n) {
        uint64_t wk = o->wake < o->out ? o->out : o->wake > t ? t : o->wake;
        double slept_from = x->new_t[i - 1] - (double)(from - o->out); /* new time of out */
        double woken = new_at(&l[o->waker], wk, factor) + (double)(t - wk);
        at = woken > slept_from ? woken : slept_from;
      }
    }
    x->new_t[i] = at;
    x->done = i + 1;
  }
  const sim_line *rl = &l[root];
  double end = rl->w->n ? new_at(rl, rl->k->last, factor) : (double)rl->k->last;
  double wall = end - (double)rl->k->first;
  for (size_t i = 0; i < n; i++)
    free(l[i].new_t);
  free(l);
  free(order);
  return wall;
}

void ip_whatif_predict(const ip_session *s, const ip_critical *c, double factor,
                       uint64_t *observed_ns, uint64_t *predicted_ns) {
  *observed_ns = *predicted_ns = 0;
  uint32_t *idx = ip_must_calloc(s->n_threads + 1, sizeof *idx);
  for (size_t p = 0; p < s->n_processes; p++) {
    const ip_process *pr = &s->processes[p];
    if (!pr->wake_edges)
      continue;
    size_t n = 0;
    long root = -1;
    /* the threads as ip_critical_find listed them (wakers and creators are
     * indexes into this list) */
    for (size_t i = 0; i < s->n_threads && i < c->n_klines; i++) {
      if (s->threads[i].process != p || !c->klines[i] || !c->klines[i]->last)
        continue;
      if (s->threads[i].tid == pr->pid && root < 0)
        root = (long)n;
      idx[n++] = (uint32_t)i;
    }
    if (!n)
      continue;
    if (root < 0)
      for (size_t i = 0; i < n; i++)
        if (root < 0 || c->klines[idx[i]]->last > c->klines[idx[root]]->last)
          root = (long)i;
    double ns_per_tick = pr->ticks_per_second > 0 ? 1e9 / pr->ticks_per_second : 1.0;
    const ip_kline *r = c->klines[idx[root]];
    *observed_ns += (uint64_t)((double)(r->last - r->first) * ns_per_tick + 0.5);
    double wall = simulate(c, idx, n, (size_t)root, factor);
    *predicted_ns += wall > 0 ? (uint64_t)(wall * ns_per_tick + 0.5) : 0;
  }
  free(idx);
}
