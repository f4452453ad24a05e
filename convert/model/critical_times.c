/* model/critical_times.c - the critical path and the wake edges on the
 * exports' timeline.  The walk works in each process's raw ticks; the
 * exports place calls in nanoseconds after the session start with the probe
 * cost removed.  The second replay hands each interval of a thread (its raw
 * ticks and the ns it took) to ip_critical_times, which gives every piece
 * boundary, wake-up and off-CPU end inside it the time at the same fraction
 * of the interval: they fall where the thread's calls around them are.
 * Boundaries before the thread's first event or after its last (a new
 * thread waiting for a CPU before its first probe, a thread preempted
 * after its last) are in no interval: ip_critical_times_outside places
 * them by the process's clock from that first or last event. */
#include <stdlib.h>

#include "model/critical.h"
#include "model/profile.h"
#include "util/util.h"

static uint64_t *unknown_times(size_t n) {
  uint64_t *v = ip_must_calloc(n + 1, sizeof *v);
  for (size_t i = 0; i < n; i++)
    v[i] = UINT64_MAX;
  return v;
}

void ip_critical_times_prepare(ip_critical *c) {
  c->piece_ns = unknown_times(2 * c->n_pieces);
  for (size_t i = 0; i < c->n_klines; i++)
    if (c->klines[i]) {
      c->klines[i]->wake_ns = unknown_times(c->klines[i]->n_wake);
      c->klines[i]->in_ns = unknown_times(c->klines[i]->n_off);
    }
}

/* The time of tick t in [a, b]: ns0 at a, ns0 + el at b. */
static uint64_t at_tick(uint64_t t, uint64_t a, uint64_t b, uint64_t ns0, uint64_t el) {
  return ns0 + (uint64_t)((unsigned __int128)el * (t - a) / (b - a));
}

void ip_critical_times(const ip_critical *c, uint32_t thread, size_t at[3], uint64_t a, uint64_t b,
                       uint64_t ns0, uint64_t el) {
  if (!c->piece_ns || b <= a)
    return;
  size_t n = thread < c->n_threads ? c->thread_n[thread] : 0;
  while (at[0] < n && ip_critical_piece(c, thread, at[0])->to < a)
    at[0]++;
  for (size_t i = at[0]; i < n; i++) { /* a boundary at a itself is this interval's start */
    const ip_cp_piece *p = ip_critical_piece(c, thread, i);
    if (p->from > b)
      break;
    size_t k = c->by_thread[c->thread_first[thread] + i];
    if (p->from >= a && c->piece_ns[2 * k] == UINT64_MAX)
      c->piece_ns[2 * k] = at_tick(p->from, a, b, ns0, el);
    if (p->to >= a && p->to <= b)
      c->piece_ns[2 * k + 1] = at_tick(p->to, a, b, ns0, el);
  }
  const ip_kline *k = thread < c->n_klines ? c->klines[thread] : NULL;
  if (!k || !k->wake_ns)
    return;
  while (at[1] < k->n_wake && k->wake[at[1]].tick <= a)
    at[1]++;
  for (; at[1] < k->n_wake && k->wake[at[1]].tick <= b; at[1]++)
    k->wake_ns[at[1]] = at_tick(k->wake[at[1]].tick, a, b, ns0, el);
  while (at[2] < k->n_off && k->off[at[2]].in <= a)
    at[2]++;
  for (; at[2] < k->n_off && k->off[at[2]].in <= b; at[2]++)
    k->in_ns[at[2]] = at_tick(k->off[at[2]].in, a, b, ns0, el);
}

void ip_critical_times_outside(const ip_critical *c, uint32_t thread, uint64_t first,
                               uint64_t first_ns, uint64_t last, uint64_t last_ns,
                               double ns_per_tick) {
  if (!c->piece_ns)
    return;
  size_t n = thread < c->n_threads ? c->thread_n[thread] : 0;
  for (size_t i = 0; i < n; i++) {
    const ip_cp_piece *p = ip_critical_piece(c, thread, i);
    size_t k = c->by_thread[c->thread_first[thread] + i];
    for (int end = 0; end < 2; end++) {
      uint64_t t = end ? p->to : p->from, *ns = &c->piece_ns[2 * k + end];
      if (*ns != UINT64_MAX)
        continue;
      if (t <= first) {
        uint64_t d = (uint64_t)((double)(first - t) * ns_per_tick + 0.5);
        *ns = d < first_ns ? first_ns - d : 0;
      } else if (t >= last) {
        *ns = last_ns + (uint64_t)((double)(t - last) * ns_per_tick + 0.5);
      }
    }
  }
}

int ip_critical_piece_ns(const ip_session *s, const ip_critical *c, size_t i, uint64_t *from,
                         uint64_t *to) {
  const ip_cp_piece *p = &c->pieces[i];
  uint64_t f = c->piece_ns ? c->piece_ns[2 * i] : UINT64_MAX;
  uint64_t t = c->piece_ns ? c->piece_ns[2 * i + 1] : UINT64_MAX;
  if (f == UINT64_MAX && t == UINT64_MAX)
    return 0;
  const ip_thread *th = p->thread < s->n_threads ? &s->threads[p->thread] : NULL;
  double tps = th && th->process < s->n_processes ? s->processes[th->process].ticks_per_second : 0;
  uint64_t len = tps > 0 ? (uint64_t)((double)(p->to - p->from) * 1e9 / tps + 0.5) : 0;
  if (f == UINT64_MAX) /* an end in an interval the replay left out (data lost before it) */
    f = t > len ? t - len : 0;
  if (t == UINT64_MAX)
    t = f + len;
  *from = f;
  *to = t < f ? f : t;
  return 1;
}

/* The session indexes of process p's threads as ip_critical_find lists
 * them (the wakers' and creators' numbering), into idx; their number. */
static size_t process_threads(const ip_session *s, const ip_critical *c, size_t p, uint32_t *idx) {
  size_t n = 0;
  for (size_t i = 0; i < s->n_threads && i < c->n_klines; i++)
    if (s->threads[i].process == p && c->klines[i] && c->klines[i]->last)
      idx[n++] = (uint32_t)i;
  return n;
}

/* The time of waker w's wake-up of tid nearest tick (among the 64 records
 * either side: the edge's tick is the record's, moved by at most the
 * clocks' tolerance), or UINT64_MAX. */
static uint64_t wake_time(const ip_kline *w, uint32_t tid, uint64_t tick) {
  size_t lo = 0, hi = w->n_wake; /* the first record at or after tick */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (w->wake[mid].tick < tick)
      lo = mid + 1;
    else
      hi = mid;
  }
  uint64_t best = UINT64_MAX, ns = UINT64_MAX;
  size_t from = lo > 64 ? lo - 64 : 0, to = lo + 64 < w->n_wake ? lo + 64 : w->n_wake;
  for (size_t i = from; i < to; i++) {
    if (w->wake[i].wakee != tid || w->wake_ns[i] == UINT64_MAX)
      continue;
    uint64_t d = w->wake[i].tick > tick ? w->wake[i].tick - tick : tick - w->wake[i].tick;
    if (d < best) {
      best = d;
      ns = w->wake_ns[i];
    }
  }
  return ns;
}

size_t ip_critical_flows(const ip_session *s, const ip_critical *c, ip_wake_flow **out) {
  size_t n = 0, cap = 0;
  *out = NULL;
  uint32_t *idx = ip_must_calloc(s->n_threads + 1, sizeof *idx);
  for (size_t p = 0; p < s->n_processes; p++) {
    if (!s->processes[p].wake_edges)
      continue;
    size_t m = process_threads(s, c, p, idx);
    for (size_t x = 0; x < m; x++) {
      const ip_kline *k = c->klines[idx[x]];
      if (!k->wake_ns)
        continue;
      uint32_t tid = s->threads[idx[x]].tid;
      for (size_t j = 0; j < k->n_off; j++) {
        const ip_offcpu *o = &k->off[j];
        if (!o->blocked || o->waker >= m || o->exit_edge || k->in_ns[j] == UINT64_MAX)
          continue;
        uint64_t w = wake_time(c->klines[idx[o->waker]], tid, o->wake);
        if (w == UINT64_MAX) /* the times come from two threads' timelines, each with its
                                own probe cost removed: the wake-up may fall a little after */
          continue;
        ip_must_grow((void **)out, &cap, n + 1, sizeof **out);
        (*out)[n++] = (ip_wake_flow){idx[o->waker], idx[x], w, k->in_ns[j]};
      }
      if (k->creator < m) { /* its start */
        uint64_t w = wake_time(c->klines[idx[k->creator]], tid, k->created);
        uint64_t start = s->threads[idx[x]].start_ns;
        if (w != UINT64_MAX) {
          ip_must_grow((void **)out, &cap, n + 1, sizeof **out);
          (*out)[n++] = (ip_wake_flow){idx[k->creator], idx[x], w, start};
        }
      }
    }
  }
  free(idx);
  return n;
}
