/* model/replay_pool.c - parallel replay of one trace file's threads (see
 * model/replay_pool.h).  The calling thread splits frames, checks their
 * crc32 and wire structure (ip_reader_next_raw) and queues each event batch
 * of a live thread, undecoded, to the worker owning the thread; the worker
 * decodes and replays it.  A worker replays with its own copy of the ip_file
 * and of the ip_session, refreshed whenever the calling thread has changed
 * them: the copies share the session's arrays (threads, nodes, functions),
 * which only the calling thread grows, and only while no worker runs.  A
 * batch naming a function not yet defined stops its worker, and the calling
 * thread applies it with every worker idle or stopped, in file order, so
 * replay on a worker never adds a function; the one session counter replay
 * writes (samples_in_runtime) is summed back from the copies.  Memory: RING
 * batches per worker, their bytes and decoded arrays. */
#include "model/replay_pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "read/batch_decode.h"
#include "util/must_alloc.h"

#define RING 8
#define NONE UINT32_MAX

typedef struct slot {
  ip_tstate *ts;
  uint64_t seq; /* place in the file among queued batches */
  ip_raw_batch raw;
  ip_batch_buf buf;
  Inclprof__Record *own;       /* protobuf-c's decoding of raw, or NULL */
  const Inclprof__Record *rec; /* the decoded record: &buf.rec or own */
} slot;

typedef struct worker {
  struct pool *pool;
  pthread_t id;
  pthread_cond_t work; /* a batch was queued, the worker may go on, or stop */
  slot ring[RING];     /* ring[head % RING .. tail % RING) are queued */
  size_t head, tail;   /* under pool.mu */
  int stopped;         /* under pool.mu: ring[head] names an undefined function */
  ip_file file;        /* f with .s = &sess */
  ip_session sess;     /* shallow copy of the session */
  uint64_t base_in_rt; /* sess.samples_in_runtime at the copy */
} worker;

typedef struct pool {
  pthread_mutex_t mu;
  pthread_cond_t room; /* a worker finished or stopped at a batch */
  int stop;
  worker *w;
  unsigned n;
  uint32_t dense; /* gids 1 .. dense-1 are all defined (they stay defined) */
  uint64_t seq;   /* batches queued so far */
} pool;

/* Decodes a batch whose bytes ip_batch_peek accepted, by the fast decoder
 * or else protobuf-c: only memory can fail. */
static void decode(slot *sl) {
  int fast = ip_batch_decode(&sl->buf, sl->raw.p, sl->raw.len);
  if (!fast)
    sl->own = inclprof__record__unpack(NULL, sl->raw.len, sl->raw.p);
  if (fast < 0 || (!fast && !sl->own)) {
    fputs("inclprof: out of memory\n", stderr);
    exit(1);
  }
  sl->rec = fast ? &sl->buf.rec : sl->own;
}

/* Frees what decode allocated apart from the reused arrays. */
static void drop(slot *sl) {
  if (sl->own)
    inclprof__record__free_unpacked(sl->own, NULL);
  sl->own = NULL;
}

static int functions_known(const pool *p, const ip_file *f, const Inclprof__EventBatch *b);

static void *work(void *arg) {
  worker *w = arg;
  pool *p = w->pool;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while ((w->head == w->tail || w->stopped) && !p->stop)
      pthread_cond_wait(&w->work, &p->mu);
    if (w->head == w->tail || w->stopped)
      break;
    slot *sl = &w->ring[w->head % RING];
    pthread_mutex_unlock(&p->mu);
    decode(sl);
    int known = functions_known(p, &w->file, sl->rec->events);
    if (known) {
      ip_replay_batch(&w->file, sl->ts, sl->rec->events);
      drop(sl);
    }
    pthread_mutex_lock(&p->mu);
    if (known)
      w->head++;
    else
      w->stopped = 1;
    if (w->tail - w->head <= RING / 2 || w->stopped)
      pthread_cond_signal(&p->room);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

/* Waits until every worker is idle or stopped; takes their counters back
 * into f->s and returns the stopped worker whose batch comes first in the
 * file, or NULL. */
static worker *quiet(pool *p, ip_file *f) {
  worker *first = NULL;
  pthread_mutex_lock(&p->mu);
  for (unsigned i = 0; i < p->n; i++) {
    worker *w = &p->w[i];
    while (w->head != w->tail && !w->stopped)
      pthread_cond_wait(&p->room, &p->mu);
    if (w->stopped && (!first || w->ring[w->head % RING].seq < first->ring[first->head % RING].seq))
      first = w;
  }
  pthread_mutex_unlock(&p->mu);
  for (unsigned i = 0; i < p->n; i++) {
    worker *w = &p->w[i];
    f->s->samples_in_runtime += w->sess.samples_in_runtime - w->base_in_rt;
    w->base_in_rt = w->sess.samples_in_runtime;
  }
  return first;
}

static void refresh(pool *p, const ip_file *f);

/* Waits until every worker is idle, applying the batches that stopped them
 * on the calling thread in file order. */
static void drain(pool *p, ip_file *f, ip_take_record take) {
  worker *w;
  while ((w = quiet(p, f))) {
    slot *sl = &w->ring[w->head % RING];
    take(f, sl->rec);
    drop(sl);
    refresh(p, f);
    pthread_mutex_lock(&p->mu);
    w->head++;
    w->stopped = 0;
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&p->mu);
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

/* Queues the batch in *raw (swapped with the slot's buffer) for ts's worker. */
static void dispatch(pool *p, ip_file *f, ip_take_record take, ip_raw_batch *raw, ip_tstate *ts) {
  worker *w = &p->w[ts->thread % p->n];
  pthread_mutex_lock(&p->mu);
  if (w->tail - w->head == RING) /* then wait until it is half empty */
    while (w->tail - w->head > RING / 2) {
      if (w->stopped) {
        pthread_mutex_unlock(&p->mu);
        drain(p, f, take);
        pthread_mutex_lock(&p->mu);
      } else
        pthread_cond_wait(&p->room, &p->mu);
    }
  pthread_mutex_unlock(&p->mu);
  slot *sl = &w->ring[w->tail % RING]; /* not queued: the worker leaves it alone */
  ip_raw_batch mine = sl->raw;
  sl->raw = *raw;
  *raw = mine;
  sl->ts = ts;
  sl->seq = p->seq++;
  pthread_mutex_lock(&p->mu);
  w->tail++;
  pthread_cond_signal(&w->work);
  pthread_mutex_unlock(&p->mu);
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
    for (int k = 0; k < RING; k++) {
      ip_batch_buf_free(&p->w[i].ring[k].buf);
      free(p->w[i].ring[k].raw.p);
    }
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
  ip_raw_batch raw = {0};
  slot here = {0}; /* a batch applied on this thread */
  ip_batch_buf_init(&here.buf);
  int rc;
  while ((rc = ip_reader_next_raw(r, &rec, &raw, err, errlen)) > 0) {
    if (rc == 2) {
      ip_tstate *ts = started == jobs ? live_state(f, raw.tid) : NULL;
      if (ts) {
        dispatch(&p, f, take, &raw, ts);
        continue;
      }
      here.raw = raw;
      decode(&here);
    }
    /* Anything else, in file order, with every worker idle. */
    drain(&p, f, take);
    take(f, rc == 2 ? here.rec : rec);
    drop(&here);
    refresh(&p, f);
  }
  drain(&p, f, take);
  finish(&p, started);
  free(raw.p);
  ip_batch_buf_free(&here.buf);
  return rc;
}
