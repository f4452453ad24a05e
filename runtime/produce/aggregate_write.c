/* aggregate_write.c - the aggregate mode's tree of a thread written as a
 * ThreadProfile record (format: docs/trace-format.md): the whole tree when
 * the thread or the process ends, the tree so far at `inclprof ctl flush`
 * (open frames counted up to the last event, nothing changed), and, every
 * INCLPROF_INTERVAL, what changed since the last interval into a file of its
 * own (OUTPUT/<pid>.intervals/NNNNNN.ipb).  Never on a probe's path. */
#include <sched.h>
#include <string.h>

#include "produce/aggregate.h"
#include "trace_frame.h"

/* The record's arrays: one allocation for the paths, one for the buckets. */
enum {
  COLUMNS = 9,
  C_CALLS = 0,
  C_EL_INCL = 1,
  C_EL_EXCL = 2,
  C_APP_INCL = 3,
  C_APP_EXCL = 4,
  C_MIN = 5,
  C_MAX = 6,
  C_SMP = 7
};
struct columns {
  size_t n;
  uint32_t *parent, *gid;
  uint64_t *v[COLUMNS];  /* calls ... samples_exclusive, in the record's order */
  uint64_t *wait[2];     /* inclusive, exclusive: AGG_WAIT_N per path */
  uint32_t *lat_buckets; /* per path: how many of lat_bucket are its */
  uint32_t *lat_bucket;  /* absolute bucket numbers, each path's in order */
  uint64_t *lat_count;
  size_t n_lat;
  const uint64_t *pc; /* samples by address: n_pcs of (pc, path, count), or none */
  const uint32_t *pc_path, *pc_count;
  size_t n_pcs;
};

/* A thread's counts besides its paths. */
struct counts {
  uint64_t el, events, gaps, gap_ticks, popped, unmatched, unwound, samples_outside, kernel_lost;
  uint64_t probe_removed, app_intervals, dense_intervals, forked;
};

/* What the last interval's file had: its snapshot, to subtract. */
struct agg_prev {
  struct columns c;
  struct counts k;
  uint64_t tick; /* where it was counted to: the thread's last event or the interval's end */
};

static void columns_free(struct columns *c) {
  ip_free(c->parent);
  ip_free(c->lat_bucket);
  memset(c, 0, sizeof *c);
}

/* Room for n paths and nl buckets; -1 when no memory is left. */
static int columns_alloc(struct columns *c, size_t n, size_t nl) {
  c->parent =
      ip_alloc(n * (2 * sizeof(uint32_t) + (COLUMNS + 2 * AGG_WAIT_N) * sizeof(uint64_t)) + 8);
  c->lat_bucket = ip_alloc(nl * (sizeof(uint32_t) + sizeof(uint64_t)) + n * sizeof(uint32_t) + 8);
  if (!c->parent || !c->lat_bucket) {
    columns_free(c);
    return -1;
  }
  c->n = n;
  c->gid = c->parent + n;
  uint64_t *at = (uint64_t *)(void *)(c->gid + n); /* 2n uint32_t: 8-byte aligned */
  for (int k = 0; k < COLUMNS; k++)
    c->v[k] = at + (size_t)k * n;
  c->wait[0] = at + (size_t)COLUMNS * n;
  c->wait[1] = c->wait[0] + (size_t)AGG_WAIT_N * n;
  c->lat_count = (uint64_t *)(void *)(c->lat_bucket + nl + (nl & 1));
  c->lat_buckets = (uint32_t *)(void *)(c->lat_count + nl);
  c->n_lat = 0;
  c->pc = NULL;
  c->pc_path = c->pc_count = NULL;
  c->n_pcs = 0;
  return 0;
}

/* a's tree as the record's arrays; its open frames count as closed at its
 * last event, or open_el later (ticks << IP_FX past its last event, of which
 * open_app Application): their time so far in their paths' inclusive values;
 * their calls' durations are not in the histograms yet. */
static int columns_fill(const struct ip_agg *a, uint64_t open_el, uint64_t open_app,
                        struct columns *c) {
  size_t n = a->n_nodes, nl = 0;
  for (size_t i = 0; i < n; i++)
    for (unsigned k = 0; k < a->nodes[i].lat_n; k++)
      nl += a->nodes[i].lat[k] != 0;
  if (columns_alloc(c, n, nl) != 0)
    return -1;
  for (size_t i = 0; i < n; i++) {
    const struct agg_node *nd = &a->nodes[i];
    c->parent[i] = nd->parent == NO_NODE ? 0 : nd->parent + 1;
    c->gid[i] = nd->gid;
    const uint64_t v[COLUMNS] = {
        nd->calls,    nd->el_incl,  0,           nd->el_incl - nd->tr_incl, 0, nd->min_call,
        nd->max_call, nd->smp_incl, nd->smp_excl};
    for (int k = 0; k < COLUMNS; k++)
      c->v[k][i] = v[k];
    memcpy(&c->wait[0][i * AGG_WAIT_N], nd->wait_incl, sizeof nd->wait_incl);
    memcpy(&c->wait[1][i * AGG_WAIT_N], nd->wait_excl, sizeof nd->wait_excl);
    size_t first = c->n_lat;
    for (unsigned k = 0; k < nd->lat_n; k++)
      if (nd->lat[k]) {
        c->lat_bucket[c->n_lat] = nd->lat_lo + k;
        c->lat_count[c->n_lat++] = nd->lat[k];
      }
    c->lat_buckets[i] = (uint32_t)(c->n_lat - first);
  }
  for (size_t i = 0; i < a->stk.depth; i++) {
    const struct agg_frame *fr = ip_agg_frame(a, i);
    if (fr->node == NO_NODE)
      continue;
    c->v[C_CALLS][fr->node]++;
    c->v[C_EL_INCL][fr->node] += a->el - fr->push_el + open_el;
    c->v[C_APP_INCL][fr->node] += a->el - fr->push_el - (a->tr - ip_agg_push_tr(a, fr)) + open_app;
    c->v[C_SMP][fr->node] += a->smp - ip_agg_push_smp(a, fr);
    for (int k = 0; ip_agg_waited(a, fr) && k < AGG_WAIT_N; k++)
      c->wait[0][fr->node * AGG_WAIT_N + k] += a->wait[k] - fr->push_wait[k];
  }
  for (size_t i = 0; i < n; i++)
    if (!c->v[C_CALLS][i])
      c->v[C_MIN][i] = 0;
  /* A path's Exclusive times: its Inclusive ones less its children's (each
   * interval goes to the path on top, so the two are one sum) */
  memcpy(c->v[C_EL_EXCL], c->v[C_EL_INCL], n * sizeof *c->v[C_EL_EXCL]);
  memcpy(c->v[C_APP_EXCL], c->v[C_APP_INCL], n * sizeof *c->v[C_APP_EXCL]);
  for (size_t i = 0; i < n; i++)
    if (a->nodes[i].parent != NO_NODE) {
      c->v[C_EL_EXCL][a->nodes[i].parent] -= c->v[C_EL_INCL][i];
      c->v[C_APP_EXCL][a->nodes[i].parent] -= c->v[C_APP_INCL][i];
    }
  return 0;
}

static struct counts counts_of(const struct ip_agg *a) {
  return (struct counts){a->el,          a->events,        a->gaps,          a->gap_ticks,
                         a->popped,      a->unmatched,     a->unwound,       a->samples_outside,
                         a->kernel_lost, a->probe_removed, a->app_intervals, a->dense_intervals,
                         a->forked};
}

/* The record of t's columns c and counts k, started at start_tick with
 * its last event at end_tick and closed_at_end frames open at its end
 * (counted as closed there), framed into *buf (grown; *len bytes used),
 * or, with buf NULL, appended to the trace.  Each path's buckets are
 * delta-coded here, in c. */
static void emit(const struct ip_rt_thread *t, struct columns *c, const struct counts *k,
                 uint64_t start_tick, uint64_t end_tick, uint64_t closed_at_end, uint8_t **buf,
                 size_t *len, size_t *cap) {
  for (size_t i = 0, at = 0; i < c->n; at += c->lat_buckets[i++])
    for (size_t j = at + c->lat_buckets[i]; j-- > at + 1;)
      c->lat_bucket[j] -= c->lat_bucket[j - 1] + 1;
  Inclprof__ThreadProfile p = INCLPROF__THREAD_PROFILE__INIT;
  p.tid = t->tid;
  p.has_start_tick = p.has_elapsed = p.has_events = p.has_gaps = p.has_gap_ticks = 1;
  p.has_popped = p.has_closed_at_end = p.has_unmatched = p.has_unwound = 1;
  p.has_samples_outside = 1;
  p.start_tick = start_tick;
  p.elapsed = k->el;
  p.events = k->events;
  p.gaps = k->gaps;
  p.gap_ticks = k->gap_ticks;
  p.popped = k->popped;
  p.closed_at_end = closed_at_end;
  p.unmatched = k->unmatched;
  p.unwound = k->unwound;
  p.samples_outside = k->samples_outside;
  p.has_kernel_lost = p.has_end_tick = p.has_probe_removed = p.has_app_intervals = 1;
  p.has_dense_intervals = 1;
  p.kernel_lost = k->kernel_lost;
  p.end_tick = end_tick;
  p.probe_removed = k->probe_removed;
  p.app_intervals = k->app_intervals;
  p.dense_intervals = k->dense_intervals;
  p.has_forked = k->forked != 0;
  p.forked = k->forked;
  if (ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS) {
    p.n_wait_inclusive = p.n_wait_exclusive = c->n * AGG_WAIT_N;
    p.wait_inclusive = c->wait[0];
    p.wait_exclusive = c->wait[1];
  }
  size_t n = c->n;
  p.n_parent = p.n_gid = n;
  p.parent = c->parent;
  p.gid = c->gid;
  p.n_calls = p.n_elapsed_inclusive = p.n_elapsed_exclusive = p.n_application_inclusive =
      p.n_application_exclusive = p.n_min_call = p.n_max_call = p.n_samples_inclusive =
          p.n_samples_exclusive = n;
  uint64_t **col[COLUMNS] = {&p.calls,
                             &p.elapsed_inclusive,
                             &p.elapsed_exclusive,
                             &p.application_inclusive,
                             &p.application_exclusive,
                             &p.min_call,
                             &p.max_call,
                             &p.samples_inclusive,
                             &p.samples_exclusive};
  for (int j = 0; j < COLUMNS; j++)
    *col[j] = c->v[j];
  p.n_latency_buckets = n;
  p.latency_buckets = c->lat_buckets;
  p.n_latency_bucket = p.n_latency_count = c->n_lat;
  p.latency_bucket = c->lat_bucket;
  p.latency_count = c->lat_count;
  p.n_sample_pc = p.n_sample_path = p.n_sample_count = c->n_pcs;
  p.sample_pc = (uint64_t *)c->pc;
  p.sample_path = (uint32_t *)c->pc_path;
  p.sample_count = (uint32_t *)c->pc_count;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_THREAD_PROFILE;
  rec.thread_profile = &p;
  if (!buf) {
    ip_write_record(&rec, 0);
    return;
  }
  size_t max = ip_frame_max_size(&rec);
  if (*len + max > *cap) {
    size_t want = (*len + max) * 2;
    uint8_t *b = ip_realloc(*buf, want);
    if (!b)
      return;
    *buf = b;
    *cap = want;
  }
  *len += ip_frame_encode(&rec, *buf + *len);
}

static void write_profile(const struct ip_rt_thread *t, const struct ip_agg *a) {
  struct columns c;
  if (columns_fill(a, 0, 0, &c) != 0) {
    ip_say("inclprof: aggregate mode: no memory to write thread %u's profile\n", (unsigned)t->tid);
    return;
  }
  /* the samples by address, whole (an interval's file has none) */
  uint64_t *pc = ip_alloc(a->n_pcs * (sizeof *pc + 2 * sizeof(uint32_t)) + 8);
  uint32_t *path = pc ? (uint32_t *)(void *)(pc + a->n_pcs) : NULL;
  uint32_t *count = path ? path + a->n_pcs : NULL;
  for (size_t i = 0, j = 0; pc && i < a->cap_pcs; i++)
    if (a->pcs[i].pc) {
      pc[j] = a->pcs[i].pc;
      path[j] = a->pcs[i].node;
      count[j++] = a->pcs[i].count;
    }
  c.n_pcs = pc ? a->n_pcs : 0;
  c.pc = pc;
  c.pc_path = path;
  c.pc_count = count;
  struct counts k = counts_of(a);
  emit(t, &c, &k, a->start_tick, a->hwm, a->closed_at_end + a->stk.depth, NULL, NULL, NULL);
  ip_free(pc);
  columns_free(&c);
}

/* Whether the kernel worked for t since its last event (its ring moved;
 * always in pmu mode, which cannot tell). */
static int moved_since_last_event(const struct ip_rt_thread *t) {
  if (ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_PMU)
    return 1;
  return ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS && *t->tr_src != t->tr_last;
}

/* --interval: the last part of the threads that ended since the last
 * interval's file, for the next one (or the process's last). */
static pthread_mutex_t ended_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static uint8_t *ended;
static size_t ended_len, ended_cap;

void ip_agg_write(struct ip_rt_thread *t, int alive_until_now, uint64_t now) {
  struct ip_agg *a = t->agg;
  if (!a || a->written || !a->have_tick)
    return;
  ip_agg_close_all(a, alive_until_now, now, alive_until_now && moved_since_last_event(t));
  if (ip_st.intervals_on && ip_lock(&ended_lock, 0)) {
    ip_agg_interval(t, a->hwm, &ended, &ended_len, &ended_cap);
    ip_unlock(&ended_lock);
  }
  a->written = 1;
  if (a->broken)
    ip_say("inclprof: aggregate mode: thread %u ran out of memory for its call paths; some calls "
           "are missing from its profile\n",
           (unsigned)t->tid);
  write_profile(t, a);
}

void ip_agg_snapshot(const struct ip_rt_thread *t) {
  const struct ip_agg *a = t->agg;
  if (a && !a->written && a->have_tick)
    write_profile(t, a);
}

/* ---- --interval: what changed since the last interval ------------------ */

static void prev_free(struct agg_prev *p) {
  if (!p)
    return;
  columns_free(&p->c);
  ip_free(p);
}

/* ns in ticks << IP_FX (the histograms' buckets back into the record's unit). */
static uint64_t ns_fx(const struct ip_agg *a, uint64_t ns) {
  return (uint64_t)(((unsigned __int128)ns << (32 + IP_FX)) / a->ns_per_tick_fx);
}

/* d = c less the previous snapshot p (paths beyond p's are new; a value
 * below p's, when p counted an open frame's time past an event folded
 * since, gains 0); a path's shortest and longest call of the interval are
 * the middles of its lowest and highest bucket that gained calls (within
 * 0.78 %). */
static int delta(const struct ip_agg *a, const struct columns *c, const struct columns *p,
                 struct columns *d) {
  if (columns_alloc(d, c->n, c->n_lat) != 0)
    return -1;
  memcpy(d->parent, c->parent, c->n * sizeof *c->parent);
  memcpy(d->gid, c->gid, c->n * sizeof *c->gid);
  for (int w = 0; w < 2; w++)
    for (size_t j = 0; j < c->n * AGG_WAIT_N; j++)
      d->wait[w][j] = c->wait[w][j] - (j < p->n * AGG_WAIT_N ? p->wait[w][j] : 0);
  size_t ci = 0, pi = 0;
  for (size_t i = 0; i < c->n; i++) {
    int old = i < p->n;
    for (int k = 0; k < COLUMNS; k++) {
      uint64_t was = old && k != C_MIN && k != C_MAX ? p->v[k][i] : 0;
      d->v[k][i] = c->v[k][i] > was ? c->v[k][i] - was : 0;
    }
    size_t ce = ci + c->lat_buckets[i], pe = pi + (old ? p->lat_buckets[i] : 0);
    size_t first = d->n_lat;
    for (; ci < ce; ci++) {
      while (pi < pe && p->lat_bucket[pi] < c->lat_bucket[ci])
        pi++;
      uint64_t was = pi < pe && p->lat_bucket[pi] == c->lat_bucket[ci] ? p->lat_count[pi] : 0;
      if (c->lat_count[ci] > was) {
        d->lat_bucket[d->n_lat] = c->lat_bucket[ci];
        d->lat_count[d->n_lat++] = c->lat_count[ci] - was;
      }
    }
    pi = pe;
    d->lat_buckets[i] = (uint32_t)(d->n_lat - first);
    d->v[C_MIN][i] = d->n_lat > first ? ns_fx(a, ip_lat_bucket_mid(d->lat_bucket[first])) : 0;
    d->v[C_MAX][i] =
        d->n_lat > first ? ns_fx(a, ip_lat_bucket_mid(d->lat_bucket[d->n_lat - 1])) : 0;
    if (!d->v[C_CALLS][i] && d->n_lat == first)
      d->v[C_MIN][i] = d->v[C_MAX][i] = 0;
  }
  return 0;
}

void ip_agg_interval(struct ip_rt_thread *t, uint64_t end, uint8_t **buf, size_t *len,
                     size_t *cap) {
  struct ip_agg *a = t->agg;
  if (!a || a->written || !a->have_tick)
    return;
  if (!a->prev && !(a->prev = ip_alloc(sizeof *a->prev)))
    return;
  struct agg_prev *p = a->prev;
  /* The time since the thread's last event is the interval's: Elapsed, and
   * Application too when the kernel did nothing for the thread meanwhile
   * (a computing thread's). */
  uint64_t open_el = ip_agg_open_time(a, end);
  uint64_t open_app = moved_since_last_event(t) ? 0 : open_el;
  uint64_t upto = open_el ? end : a->hwm;
  struct columns c, d;
  if (columns_fill(a, open_el, open_app, &c) != 0)
    return;
  if (delta(a, &c, &p->c, &d) != 0) {
    columns_free(&c);
    return;
  }
  struct counts now = counts_of(a), was = p->k;
  now.el += open_el;
  struct counts k = {now.el > was.el ? now.el - was.el : 0,
                     now.events - was.events,
                     now.gaps - was.gaps,
                     now.gap_ticks - was.gap_ticks,
                     now.popped - was.popped,
                     now.unmatched - was.unmatched,
                     now.unwound - was.unwound,
                     now.samples_outside - was.samples_outside,
                     now.kernel_lost - was.kernel_lost,
                     now.probe_removed - was.probe_removed,
                     now.app_intervals - was.app_intervals,
                     now.dense_intervals - was.dense_intervals,
                     now.forked - was.forked};
  Inclprof__Thread th = INCLPROF__THREAD__INIT;
  th.tid = t->tid;
  th.name = (char *)t->name;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_THREAD;
  rec.thread = &th;
  size_t max = ip_frame_max_size(&rec);
  uint8_t *b = *len + max > *cap ? ip_realloc(*buf, (*len + max) * 2) : *buf;
  if (b && b != *buf) {
    *buf = b;
    *cap = (*len + max) * 2;
  }
  if (b) {
    *len += ip_frame_encode(&rec, *buf + *len);
    emit(t, &d, &k, p->tick ? p->tick : a->start_tick, upto, a->stk.depth, buf, len, cap);
  }
  columns_free(&d);
  columns_free(&p->c);
  p->c = c; /* absolute buckets: emit delta-coded only d's */
  p->k = now;
  p->tick = upto;
}

void ip_agg_interval_ended(uint8_t **buf, size_t *len, size_t *cap) {
  if (!ip_lock(&ended_lock, 0))
    return;
  *buf = ended;
  *len = ended_len;
  *cap = ended_cap;
  ended = NULL;
  ended_len = ended_cap = 0;
  ip_unlock(&ended_lock);
}

void ip_agg_write_all(int in_signal) {
  if (!ip_lock(&ip_st.threads_lock, in_signal))
    return;
  uint64_t now = ip_tick_cold();
  for (struct ip_rt_thread *t = ip_st.threads; t; t = t->next) {
    if (t->state != IP_TS_READY || !t->agg)
      continue;
    /* Its owner may be folding its last buffer: wait for it, as the final
     * flush does, up to the exit's deadline. */
    while (atomic_exchange(&t->busy, 1)) {
      if (in_signal || ip_exit_deadline_passed())
        goto next;
      sched_yield();
    }
    /* and its buffers handed to the writer folded */
    if (ip_writer_settle(t, in_signal ? IP_SETTLE_SPIN : IP_SETTLE_WAIT))
      ip_agg_write(t, t != &ip_tls, now);
    atomic_store(&t->busy, 0);
  next:;
  }
  ip_unlock(&ip_st.threads_lock);
  if (ip_st.intervals_on && !in_signal) { /* the last interval: up to the end */
    uint8_t *frames = NULL;
    size_t len = 0, cap = 0;
    ip_agg_interval_ended(&frames, &len, &cap);
    ip_write_interval_file(ip_st.intervals++, now, frames, len);
    ip_free(frames);
  }
}

void ip_agg_free(struct ip_rt_thread *t) {
  struct ip_agg *a = t->agg;
  if (!a)
    return;
  t->agg = NULL;
  for (size_t i = 0; i < a->n_nodes; i++)
    ip_free(a->nodes[i].lat);
  ip_free(a->nodes);
  ip_free(a->child_key);
  ip_free(a->child_val);
  ip_free(a->stk.frames);
  ip_free(a->pcs);
  prev_free(a->prev);
  ip_free(a);
}
