/* model/replay_pool.c - parallel replay of one trace file's threads (see
 * model/replay_pool.h).  A worker replays with its own copy of the ip_file
 * and of the ip_session, refreshed whenever the calling thread has changed
 * them: the copies share the session's arrays (threads, nodes), which only
 * the calling thread grows, and only while every worker is idle.  A batch is
 * replayed by a worker only when every function it names is already
 * defined, so replay never adds a function; the one session counter replay
 * writes (samples_in_runtime) is summed back from the copies.  Memory: RING
 * decoded batches per worker. */
#include "model/replay_pool.h"

#include <pthread.h>
#include <stdlib.h>

#include "read/batch_decode.h"
#include "util/must_alloc.h"

#define RING 4
#define NONE UINT32_MAX

typedef struct slot {
  ip_tstate *ts;
  ip_batch_buf buf;
} slot;

typedef struct worker {
  struct pool *pool;
  pthread_t id;
  pthread_cond_t work; /* a batch was queued, or stop */
  slot ring[RING];     /* ring[head % RING .. tail % RING) are queued */
  size_t head, tail;   /* under pool.mu */
  ip_file file;        /* f with .s = &sess */
  ip_session sess;     /* shallow copy of the session */
  uint64_t base_in_rt; /* sess.samples_in_runtime at the copy */
} worker;

typedef struct pool {
  pthread_mutex_t mu;
  pthread_cond_t room; /* a worker finished a batch */
  int stop;
  worker *w;
  unsigned n;
  uint32_t dense; /* gids 1 .. dense-1 are all defined (they stay defined) */
} pool;

static void *work(void *arg) {
  worker *w = arg;
  pool *p = w->pool;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (w->head == w->tail && !p->stop)
      pthread_cond_wait(&w->work, &p->mu);
    if (w->head == w->tail)
      break;
    slot *sl = &w->ring[w->head % RING];
    pthread_mutex_unlock(&p->mu);
    ip_replay_batch(&w->file, sl->ts, sl->buf.rec.events);
    pthread_mutex_lock(&p->mu);
    w->head++;
    pthread_cond_signal(&p->room);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

/* Waits until every worker is idle and takes their counters back into f->s. */
static void drain(pool *p, ip_file *f) {
  pthread_mutex_lock(&p->mu);
  for (unsigned i = 0; i < p->n; i++)
    while (p->w[i].head != p->w[i].tail)
      pthread_cond_wait(&p->room, &p->mu);
  pthread_mutex_unlock(&p->mu);
  for (unsigned i = 0; i < p->n; i++) {
    worker *w = &p->w[i];
    f->s->samples_in_runtime += w->sess.samples_in_runtime - w->base_in_rt;
    w->base_in_rt = w->sess.samples_in_runtime;
  }
}

/* Gives idle workers fresh copies of f and its session. */
static void refresh(pool *p, const ip_file *f) {
  while (p->dense < f->n_gid && f->gid_func[p->dense] != NONE)
    p->dense++;
  for (unsigned i = 0; i < p->n; i++) {
    worker *w = &p->w[i];
    w->sess = *f->s;
    w->base_in_rt = w->sess.samples_in_runtime;
    w->file = *f;
    w->file.s = &w->sess;
  }
}

/* The replay state of tid when it already exists and is live, else NULL. */
static ip_tstate *live_state(ip_file *f, uint32_t tid) {
  uint32_t i = ip_u64map_get(&f->tid_state, tid);
  return i != NONE && !f->states[i]->finished ? f->states[i] : NULL;
}

/* Whether every function the batch's probes name is defined in f.  First
 * the usual case, from the smallest and largest code: no probe of gid 0
 * (codes 0-3) and every gid below dense. */
static int functions_known(const pool *p, const ip_file *f, const Inclprof__EventBatch *b) {
  uint32_t lo[4] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX}, hi[4] = {0, 0, 0, 0};
  size_t n = b->n_code, i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; k++) {
      uint32_t c = b->code[i + k];
      lo[k] = c < lo[k] ? c : lo[k];
      hi[k] = c > hi[k] ? c : hi[k];
    }
  for (; i < n; i++) {
    lo[0] = b->code[i] < lo[0] ? b->code[i] : lo[0];
    hi[0] = b->code[i] > hi[0] ? b->code[i] : hi[0];
  }
  uint32_t min = lo[0] < lo[1] ? lo[0] : lo[1], max = hi[0] > hi[1] ? hi[0] : hi[1];
  min = lo[2] < min ? lo[2] : min;
  min = lo[3] < min ? lo[3] : min;
  max = hi[2] > max ? hi[2] : max;
  max = hi[3] > max ? hi[3] : max;
  if (min > INCLPROF__EVENT_KIND__EV_RET && max >> 3 < p->dense)
    return 1;
  for (i = 0; i < n; i++) {
    uint32_t c = b->code[i], gid = c >> 3;
    if ((c & 7) <= INCLPROF__EVENT_KIND__EV_RET && (gid >= f->n_gid || f->gid_func[gid] == NONE))
      return 0;
  }
  return 1;
}

/* Queues the reader's current batch for ts's worker; 0 when the record is
 * not in the reader's batch buffer (protobuf-c decoded it). */
static int dispatch(pool *p, ip_reader *r, ip_tstate *ts) {
  worker *w = &p->w[ts->thread % p->n];
  pthread_mutex_lock(&p->mu);
  while (w->tail - w->head == RING)
    pthread_cond_wait(&p->room, &p->mu);
  pthread_mutex_unlock(&p->mu);
  slot *sl = &w->ring[w->tail % RING]; /* not queued: the worker leaves it alone */
  if (!ip_reader_take_batch(r, &sl->buf))
    return 0;
  sl->ts = ts;
  pthread_mutex_lock(&p->mu);
  w->tail++;
  pthread_cond_signal(&w->work);
  pthread_mutex_unlock(&p->mu);
  return 1;
}

/* Stops and joins the first `started` workers and frees the pool. */
static void finish(pool *p, unsigned started) {
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  for (unsigned i = 0; i < started; i++)
    pthread_cond_signal(&p->w[i].work);
  pthread_mutex_unlock(&p->mu);
  for (unsigned i = 0; i < started; i++)
    pthread_join(p->w[i].id, NULL);
  for (unsigned i = 0; i < p->n; i++) {
    for (int k = 0; k < RING; k++)
      ip_batch_buf_free(&p->w[i].ring[k].buf);
    pthread_cond_destroy(&p->w[i].work);
  }
  pthread_cond_destroy(&p->room);
  pthread_mutex_destroy(&p->mu);
  free(p->w);
}

int ip_replay_pool_run(ip_file *f, ip_reader *r, unsigned jobs, ip_take_record take, char *err,
                       size_t errlen) {
  pool p = {.n = jobs, .dense = 1};
  p.w = ip_must_calloc(jobs, sizeof *p.w);
  pthread_mutex_init(&p.mu, NULL);
  pthread_cond_init(&p.room, NULL);
  unsigned started = 0;
  for (unsigned i = 0; i < jobs; i++) {
    p.w[i].pool = &p;
    pthread_cond_init(&p.w[i].work, NULL);
    for (int k = 0; k < RING; k++)
      ip_batch_buf_init(&p.w[i].ring[k].buf);
  }
  refresh(&p, f);
  while (started < jobs && !pthread_create(&p.w[started].id, NULL, work, &p.w[started]))
    started++;
  Inclprof__Record *rec;
  int rc;
  while ((rc = ip_reader_next(r, &rec, err, errlen)) > 0) {
    if (started == jobs && rec->body_case == INCLPROF__RECORD__BODY_EVENTS) {
      ip_tstate *ts = live_state(f, rec->events->tid);
      if (ts && functions_known(&p, f, rec->events) && dispatch(&p, r, ts))
        continue;
    }
    /* Anything else, in file order, with every worker idle. */
    drain(&p, f);
    take(f, rec);
    refresh(&p, f);
  }
  drain(&p, f);
  finish(&p, started);
  return rc;
}
