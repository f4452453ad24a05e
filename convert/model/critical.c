/* model/critical.c - the critical path of each process's run from its
 * threads' kernel timelines (model/critical.h): the sleeps' wakers from the
 * wake-ups the threads recorded (and the thread exits that end a join), then
 * the walk back from the root's end, which jumps to the waker at every sleep
 * a traced thread ended and charges every other sleep to the sleeper as
 * external.  The pieces partition the root's time exactly. */
#include <stdlib.h>
#include <string.h>

#include "model/critical.h"
#include "model/profile.h"
#include "util/util.h"

/* Two clocks' readings of one instant may differ by this much: each thread's
 * records are converted to the probes' clock on their own (docs/runtime.md). */
#define CLOCK_SLACK_NS 20000.0
/* A thread's exit wakes its joiner after its ThreadEnd record, by at most
 * this much (the runtime's last flush, the kernel's exit). */
#define EXIT_SLACK_NS 2000000.0

void ip_kline_free(ip_kline *k) {
  if (!k)
    return;
  free(k->off);
  free(k->wake);
  free(k->wake_ns);
  free(k->in_ns);
  free(k);
}

void ip_critical_free(ip_critical *c) {
  free(c->pieces);
  free(c->thread_first);
  free(c->thread_n);
  free(c->by_thread);
  for (size_t i = 0; i < c->n_klines; i++) {
    ip_kline_free(c->klines[i]);
    if (c->whatif) {
      free(c->whatif[i].cut);
      free(c->whatif[i].f);
    }
  }
  free(c->klines);
  free(c->whatif);
  free(c->whatif_target);
  free(c->piece_ns);
  int collect = c->collect;
  const char *what_if = c->what_if;
  memset(c, 0, sizeof *c);
  c->collect = collect;
  c->what_if = what_if;
}

/* The last off-CPU time of k that began before t, or -1. */
static long last_out_before(const ip_kline *k, uint64_t t) {
  size_t lo = 0, hi = k->n_off; /* the first with out >= t */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (k->off[mid].out < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (long)lo - 1;
}

/* Appends [from, to) on thread, merged into the last piece when it goes on
 * from it (the walk goes back in time). */
static void emit(ip_critical *c, uint32_t thread, uint64_t from, uint64_t to, int kind,
                 uint32_t woke) {
  if (to <= from)
    return;
  if (c->n_pieces) {
    ip_cp_piece *p = &c->pieces[c->n_pieces - 1];
    if (p->thread == thread && p->kind == kind && p->from == to && p->woke == IP_NO_THREAD &&
        woke == IP_NO_THREAD) {
      p->from = from;
      return;
    }
  }
  ip_must_grow((void **)&c->pieces, &c->cap_pieces, c->n_pieces + 1, sizeof *c->pieces);
  c->pieces[c->n_pieces++] = (ip_cp_piece){from, to, thread, woke, (uint8_t)kind};
}

void ip_critical_walk(const ip_kline *const *lines, const uint32_t *index, size_t n, uint32_t root,
                      uint64_t t0, uint64_t t1, ip_critical *c) {
  size_t steps = 16;
  for (size_t i = 0; i < n; i++)
    steps += 8 * (lines[i]->n_off + 1);
  uint32_t x = root, woke = IP_NO_THREAD; /* woke: the thread the path just left for x */
  uint64_t t = t1;
  /* Every step lowers t or moves to an earlier off-CPU time of x; a jump
   * lowers t. */
  while (t > t0) {
    if (!steps--) { /* cannot happen: the rest stays whole, as x's */
      emit(c, index[x], t0, t, IP_CP_EXTERNAL, woke);
      break;
    }
    const ip_kline *k = lines[x];
    long at = last_out_before(k, t);
    if (at < 0) { /* back to the thread's start */
      uint64_t from = k->first > t0 ? k->first : t0;
      if (from < t) {
        emit(c, index[x], from, t, IP_CP_RUN, woke);
        woke = IP_NO_THREAD;
        t = from;
      }
      if (t <= t0)
        break;
      if (k->creator != IP_NO_THREAD && k->created < t) {
        from = k->created > t0 ? k->created : t0;
        emit(c, index[x], from, t, IP_CP_START, woke);
        woke = index[x];
        t = from;
        x = k->creator;
        c->jumps++;
        continue;
      }
      emit(c, index[x], t0, t, IP_CP_START, woke);
      break;
    }
    const ip_offcpu *o = &k->off[at];
    uint64_t in = o->in < t ? o->in : t;
    if (in < o->out)
      in = o->out;
    if (in < t) {
      uint64_t from = in > t0 ? in : t0;
      emit(c, index[x], from, t, IP_CP_RUN, woke);
      woke = IP_NO_THREAD;
      t = from;
      if (t <= t0)
        break;
    }
    /* The wake-up must come before t: when the sleep ended at t, a wake-up
     * at its very end counts one tick before it; when the path came back
     * into the sleep through a later wake-up (clocks that disagree), the
     * sleep's own waker cannot be behind it. */
    uint64_t w = o->wake < o->out ? o->out : o->wake;
    int jump = o->blocked && o->waker != IP_NO_THREAD && (w < t || o->in <= t);
    if (!jump) {
      uint64_t from = o->out > t0 ? o->out : t0;
      emit(c, index[x], from, t, o->blocked ? IP_CP_EXTERNAL : IP_CP_RUNNABLE, woke);
      woke = IP_NO_THREAD;
      t = from;
      continue;
    }
    if (w >= t)
      w = t - 1;
    uint64_t from = w > t0 ? w : t0;
    emit(c, index[x], from, t, IP_CP_RUNNABLE, woke);
    t = from;
    woke = index[x];
    x = o->waker;
    c->jumps++;
    c->exit_edges += o->exit_edge;
  }
}

/* A thread by tid: its lines sorted by (tid, first). */
typedef struct by_tid {
  uint32_t tid, i;
  uint64_t first;
} by_tid;

static int cmp_tid(const void *a, const void *b) {
  const by_tid *x = a, *y = b;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}

static uint64_t end_of(const ip_kline *k) { return k->end > k->last ? k->end : k->last; }

/* The thread of tid alive at t (the first of that tid not over by then), or -1. */
static long thread_at(const by_tid *v, size_t n, ip_kline *const *lines, uint32_t tid, uint64_t t,
                      uint64_t tol) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].tid < tid)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < n && v[lo].tid == tid; lo++)
    if (end_of(lines[v[lo].i]) + tol >= t)
      return (long)v[lo].i;
  return -1;
}

typedef struct by_end {
  uint64_t end;
  uint32_t i;
} by_end;

static int cmp_end(const void *a, const void *b) {
  const by_end *x = a, *y = b;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* The off-CPU time of k a wake-up at tick ended: the one the tick falls in;
 * else, as the two clocks may disagree by tol, one that began up to tol
 * after it or ended up to tol before it; -1 when none.  A wake-up right
 * before a thread's next sleep (it woke, ran a few microseconds and slept
 * again) belongs to the sleep it falls in, not to the next one. */
static long sleep_woken(const ip_kline *k, uint64_t tick, uint64_t tol) {
  long a = last_out_before(k, tick + 1); /* the last that began at or before tick */
  if (a >= 0 && k->off[a].in >= tick)
    return a;
  if ((size_t)(a + 1) < k->n_off && k->off[a + 1].out <= tick + tol)
    return a + 1;
  if (a >= 0 && k->off[a].in + tol >= tick)
    return a;
  return -1;
}

/* Sleeps no wake-up ended: woken by the exit of the thread that ended last
 * before the sleep did (a join), if one did while it slept.  A thread whose
 * trace a snapshot's window cut did not exit. */
static void exit_edges(ip_kline *const *lines, size_t n_lines, uint64_t tol, uint64_t slack) {
  by_end *ends = ip_must_calloc(n_lines ? n_lines : 1, sizeof *ends);
  size_t n = 0;
  for (size_t i = 0; i < n_lines; i++)
    if (!lines[i]->cut)
      ends[n++] = (by_end){end_of(lines[i]), (uint32_t)i};
  qsort(ends, n, sizeof *ends, cmp_end);
  for (size_t x = 0; x < n_lines; x++)
    for (size_t j = 0; j < lines[x]->n_off; j++) {
      ip_offcpu *o = &lines[x]->off[j];
      if (!o->blocked || o->waker != IP_NO_THREAD)
        continue;
      size_t lo = 0, hi = n; /* the first end after in + tol */
      while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ends[mid].end <= o->in + tol)
          lo = mid + 1;
        else
          hi = mid;
      }
      while (lo > 0 && ends[lo - 1].i == x)
        lo--;
      if (lo == 0 || ends[lo - 1].end + slack < o->out)
        continue;
      const by_end *e = &ends[lo - 1];
      o->waker = e->i;
      o->wake = e->end < o->out ? o->out : e->end > o->in ? o->in : e->end;
      o->exit_edge = 1;
    }
  free(ends);
}

void ip_critical_edges(ip_kline *const *lines, const uint32_t *tids, size_t n, uint64_t tol,
                       uint64_t exit_slack, ip_critical *c) {
  by_tid *v = ip_must_calloc(n ? n : 1, sizeof *v);
  for (size_t i = 0; i < n; i++)
    v[i] = (by_tid){tids[i], (uint32_t)i, lines[i]->first};
  qsort(v, n, sizeof *v, cmp_tid);
  for (size_t w = 0; w < n; w++)
    for (size_t j = 0; j < lines[w]->n_wake; j++) {
      const ip_wake *wk = &lines[w]->wake[j];
      long x = thread_at(v, n, lines, wk->wakee, wk->tick, tol);
      if (x < 0 || (size_t)x == w)
        continue; /* a thread of another process, or untraced */
      c->edges++;
      ip_kline *k = lines[x];
      if (wk->tick < k->first) { /* before its first event: it was being started */
        if (k->creator == IP_NO_THREAD || k->created < wk->tick) {
          k->creator = (uint32_t)w;
          k->created = wk->tick;
        }
        continue;
      }
      long at = sleep_woken(k, wk->tick, tol);
      ip_offcpu *o = at >= 0 ? &k->off[at] : NULL;
      if (!o || !o->blocked) {
        c->edges_unmatched++; /* it was not asleep then (it had not gone to sleep yet) */
        continue;
      }
      if (o->waker == IP_NO_THREAD) {
        o->waker = (uint32_t)w;
        o->wake_node = wk->node;
        o->wake = wk->tick < o->out ? o->out : wk->tick > o->in ? o->in : wk->tick;
      }
    }
  free(v);
  exit_edges(lines, n, tol, exit_slack);
}

/* Indexes the pieces by thread, oldest first (the walk found them newest
 * first, never going forward in time). */
static void index_pieces(ip_critical *c, size_t n_threads) {
  c->n_threads = n_threads;
  c->thread_first = ip_must_calloc(n_threads + 1, sizeof *c->thread_first);
  c->thread_n = ip_must_calloc(n_threads + 1, sizeof *c->thread_n);
  c->by_thread = ip_must_calloc(c->n_pieces + 1, sizeof *c->by_thread);
  for (size_t i = 0; i < c->n_pieces; i++)
    c->thread_n[c->pieces[i].thread]++;
  size_t at = 0;
  for (size_t t = 0; t < n_threads; t++) {
    c->thread_first[t] = at;
    at += c->thread_n[t];
  }
  size_t *fill = ip_must_calloc(n_threads + 1, sizeof *fill);
  for (size_t i = c->n_pieces; i-- > 0;) {
    uint32_t t = c->pieces[i].thread;
    c->by_thread[c->thread_first[t] + fill[t]++] = (uint32_t)i;
  }
  free(fill);
}

void ip_critical_find(const ip_session *s, ip_critical *c) {
  ip_kline **lines = ip_must_calloc(s->n_threads + 1, sizeof *lines);
  uint32_t *tids = ip_must_calloc(s->n_threads + 1, sizeof *tids);
  uint32_t *index = ip_must_calloc(s->n_threads + 1, sizeof *index);
  for (size_t p = 0; p < s->n_processes; p++) {
    const ip_process *pr = &s->processes[p];
    if (!pr->wake_edges)
      continue;
    c->any_edges = 1;
    size_t n = 0;
    long root = -1;
    for (size_t i = 0; i < s->n_threads; i++) {
      const ip_thread *th = &s->threads[i];
      if (th->process != p || !th->kline || !th->kline->last)
        continue;
      lines[n] = th->kline;
      lines[n]->cut = pr->snapshot && th->alive_at_exit;
      tids[n] = th->tid;
      index[n] = (uint32_t)i;
      if (th->tid == (pr->snapshot ? pr->snapshot_tid : pr->pid) && root < 0)
        root = (long)n;
      n++;
    }
    if (!n)
      continue;
    if (root < 0) /* no main thread: the thread that ended last */
      for (size_t i = 0; i < n; i++)
        if (root < 0 || lines[i]->last > lines[root]->last)
          root = (long)i;
    double ns_per_tick = pr->ticks_per_second > 0 ? 1e9 / pr->ticks_per_second : 1.0;
    uint64_t tol = (uint64_t)(CLOCK_SLACK_NS / ns_per_tick) + 1;
    ip_critical_edges(lines, tids, n, tol, (uint64_t)(EXIT_SLACK_NS / ns_per_tick), c);
    size_t from = c->n_pieces;
    const ip_kline *r = lines[root];
    uint64_t t0 = r->first, t1 = r->last;
    if (pr->snapshot && tids[root] == pr->snapshot_tid) { /* a snapshot: its slow call */
      t0 = pr->snapshot_from > t0 ? pr->snapshot_from : t0;
      t1 = pr->snapshot_to < t1 ? pr->snapshot_to : t1;
      t1 = t1 > t0 ? t1 : t0;
      c->snapshot = 1;
    }
    ip_critical_walk((const ip_kline *const *)lines, index, n, (uint32_t)root, t0, t1, c);
    c->wall_ns += (uint64_t)((double)(t1 - t0) * ns_per_tick + 0.5);
    for (size_t i = from; i < c->n_pieces; i++)
      c->kind_ns[c->pieces[i].kind] +=
          (uint64_t)((double)(c->pieces[i].to - c->pieces[i].from) * ns_per_tick + 0.5);
  }
  free(lines);
  free(tids);
  free(index);
  index_pieces(c, s->n_threads);
}
