/* model/replay_pool.c - parallel replay of one trace file's threads (see
 * model/replay_pool.h).  The calling thread splits frames, checks their
 * crc32 and wire structure (ip_reader_next_raw) and queues each event batch
 * of a live thread, undecoded, and each runtime gap of one (the runtime
 * writes one after every batch it flushes), in one list in file order.
 * jobs - 1 workers and the calling thread itself take the oldest queued
 * entry whose thread no one is replaying and that has no older entry of its
 * thread queued, decode it and replay it.  The calling thread replays
 * whenever every slot is full, so with N jobs N threads run, none waits for
 * a batch to be read while another could be replayed, and a worker sleeps
 * only when no entry is ready.  A worker replays with its own copy of the
 * ip_file and of the ip_session, refreshed whenever the calling thread has
 * changed them: the copies share the session's arrays (threads, nodes,
 * functions), which only the calling thread grows, and only while nothing
 * is being replayed.  A batch naming a function not yet defined stays
 * queued, stopped; once nothing else can be replayed the calling thread
 * applies the stopped batches in file order, so replay never adds a
 * function concurrently; the one session counter replay writes
 * (samples_in_runtime) is summed back from the copies.  Memory:
 * SLOTS_PER_JOB slots per job, each a batch's bytes, and per thread the
 * decoded arrays of the batch it replays. */
#include "model/replay_pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
/* IP_NO_AVX2 (a benchmark build, see convert/build.mk) keeps the scalar code range. */
#if defined(__x86_64__) && !defined(IP_NO_AVX2)
#define IP_AVX2_CODE_RANGE 1
#include <immintrin.h>
#endif

#include "read/read.h"
#include "util/util.h"

#define SLOTS_PER_JOB 8
#define NONE          UINT32_MAX

enum { QUEUED, RUNNING, STOPPED }; /* a slot in the list */

typedef struct slot {
  ip_tstate *ts;
  int has_batch;     /* an event batch (raw) */
  int has_gap;       /* a runtime gap (gap), after the batch if there is one */
  Inclprof__Gap gap; /* its values */
  ip_raw_batch raw;
  int state;         /* under pool.mu, while in the list */
  struct slot *next; /* in the list (file order) or the free slots */
} slot;

/* A batch decoded by the thread replaying it, into arrays that thread
 * reuses from batch to batch. */
typedef struct decoded {
  ip_batch_buf buf;
  Inclprof__Record *own;       /* protobuf-c's decoding, or NULL */
  const Inclprof__Record *rec; /* the decoded record: &buf.rec or own */
} decoded;

typedef struct worker {
  struct pool *pool;
  pthread_t id;
  ip_file file;        /* f with .s = &sess */
  ip_session sess;     /* shallow copy of the session */
  uint64_t base_in_rt; /* sess.samples_in_runtime at the copy */
  decoded dec;
} worker;

typedef struct pool {
  pthread_mutex_t mu;
  pthread_cond_t work; /* a batch was queued, or stop */
  pthread_cond_t room; /* a batch was replayed or stopped */
  int stop;
  unsigned idle;     /* workers waiting on work */
  int reader_waits;  /* the calling thread waits on room */
  slot *head, *tail; /* queued, running and stopped batches in file order */
  slot *free;        /* slots not in the list */
  slot *slots;       /* all of them */
  size_t n_slots;
  unsigned running; /* slots RUNNING */
  worker *w;
  unsigned n;     /* workers */
  uint32_t dense; /* gids 1 .. dense-1 are all defined (they stay defined) */
  decoded dec;    /* the calling thread's */
} pool;

/* Decodes a batch whose bytes ip_batch_peek accepted into d, by the fast
 * decoder or else protobuf-c: only memory can fail. */
static void decode(decoded *d, const ip_raw_batch *raw) {
  int fast = ip_batch_decode(&d->buf, raw->p, raw->len);
  if (!fast)
    d->own = inclprof__record__unpack(NULL, raw->len, raw->p);
  if (fast < 0 || (!fast && !d->own)) {
    fputs("inclprof: out of memory\n", stderr);
    exit(1);
  }
  d->rec = fast ? &d->buf.rec : d->own;
}

/* Frees what decode allocated apart from the reused arrays. */
static void drop(decoded *d) {
  if (d->own)
    inclprof__record__free_unpacked(d->own, NULL);
  d->own = NULL;
}

/* Widens [*min, *max] to hold code[0..n). */
static void code_range_of(const uint32_t *code, size_t n, uint32_t *min, uint32_t *max) {
  for (size_t i = 0; i < n; i++) {
    *min = code[i] < *min ? code[i] : *min;
    *max = code[i] > *max ? code[i] : *max;
  }
}

#ifdef IP_AVX2_CODE_RANGE
/* The same, eight codes at a time (x86-64 with AVX2). */
__attribute__((target("avx2"))) static void code_range_avx2(const uint32_t *code, size_t n,
                                                            uint32_t *min, uint32_t *max) {
  __m256i lo = _mm256_set1_epi32(-1), hi = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(code + i));
    lo = _mm256_min_epu32(lo, v);
    hi = _mm256_max_epu32(hi, v);
  }
  uint32_t l[8], h[8];
  _mm256_storeu_si256((__m256i *)l, lo);
  _mm256_storeu_si256((__m256i *)h, hi);
  code_range_of(l, 8, min, max);
  code_range_of(h, 8, min, max);
  code_range_of(code + i, n - i, min, max);
}
#endif

/* The smallest and largest of n codes (UINT32_MAX and 0 when n is 0). */
static void code_range(const uint32_t *code, size_t n, uint32_t *min, uint32_t *max) {
  *min = UINT32_MAX;
  *max = 0;
#ifdef IP_AVX2_CODE_RANGE
  if (__builtin_cpu_supports("avx2")) {
    code_range_avx2(code, n, min, max);
    return;
  }
#endif
  code_range_of(code, n, min, max);
}

/* Whether every function the batch's probes name is defined in f.  First
 * the usual case, from the smallest and largest code: no probe of gid 0
 * (codes 0-3) and every gid below dense. */
static int functions_known(const pool *p, const ip_file *f, const Inclprof__EventBatch *b) {
  uint32_t min, max;
  code_range(b->code, b->n_code, &min, &max);
  if (min > INCLPROF__EVENT_KIND__EV_RET && max >> 3 < p->dense)
    return 1;
  for (size_t i = 0; i < b->n_code; i++) {
    uint32_t c = b->code[i], gid = c >> 3;
    if ((c & 7) <= INCLPROF__EVENT_KIND__EV_RET && (gid >= f->n_gid || f->gid_func[gid] == NONE))
      return 0;
  }
  return 1;
}

/* The oldest queued batch that can be replayed now (no older batch of its
 * thread in the list), marked RUNNING; NULL if none.  Under p->mu. */
static slot *pick(pool *p) {
  for (slot *sl = p->head; sl; sl = sl->next) {
    if (sl->state != QUEUED)
      continue;
    const slot *o = p->head;
    while (o != sl && o->ts != sl->ts)
      o = o->next;
    if (o == sl) {
      sl->state = RUNNING;
      p->running++;
      return sl;
    }
  }
  return NULL;
}

/* Decodes (into d) and replays a RUNNING slot with f, outside p->mu;
 * returns 0 when its batch names a function not yet defined. */
static int replay(const pool *p, ip_file *f, decoded *d, slot *sl) {
  if (sl->has_batch) {
    decode(d, &sl->raw);
    int known = functions_known(p, f, d->rec->events);
    if (known)
      ip_replay_batch(f, sl->ts, d->rec->events);
    drop(d);
    if (!known)
      return 0;
  }
  if (sl->has_gap)
    ip_replay_gap(f, sl->ts, &sl->gap);
  return 1;
}

/* Takes sl out of the list and makes it free.  Under p->mu. */
static void unlink_slot(pool *p, slot *sl) {
  slot **at = &p->head, *prev = NULL;
  while (*at != sl) {
    prev = *at;
    at = &(*at)->next;
  }
  *at = sl->next;
  if (p->tail == sl)
    p->tail = prev;
  sl->next = p->free;
  p->free = sl;
}

/* Records the outcome of replay().  Under p->mu. */
static void settle(pool *p, slot *sl, int done) {
  p->running--;
  if (done)
    unlink_slot(p, sl);
  else
    sl->state = STOPPED;
  if (p->reader_waits)
    pthread_cond_signal(&p->room);
  if (done && p->idle && p->head) /* a batch of sl's thread may be ready now */
    pthread_cond_signal(&p->work);
}

static void *work(void *arg) {
  worker *w = arg;
  pool *p = w->pool;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    slot *sl = pick(p);
    if (!sl) {
      if (p->stop)
        break;
      p->idle++;
      pthread_cond_wait(&p->work, &p->mu);
      p->idle--;
      continue;
    }
    pthread_mutex_unlock(&p->mu);
    int done = replay(p, &w->file, &w->dec, sl);
    pthread_mutex_lock(&p->mu);
    settle(p, sl, done);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

/* Replays one entry on the calling thread, or waits for a worker to finish
 * one.  Returns 0 when the list holds nothing but stopped batches and the
 * entries queued behind them.  Under p->mu. */
static int help(pool *p, ip_file *f) {
  slot *sl = pick(p);
  if (sl) {
    pthread_mutex_unlock(&p->mu);
    int done = replay(p, f, &p->dec, sl);
    pthread_mutex_lock(&p->mu);
    settle(p, sl, done);
    return 1;
  }
  if (!p->running)
    return 0;
  p->reader_waits = 1;
  pthread_cond_wait(&p->room, &p->mu);
  p->reader_waits = 0;
  return 1;
}

/* Takes the workers' counters back into f->s and gives them fresh copies of
 * f and its session.  Only while no batch runs. */
static void refresh(pool *p, ip_file *f) {
  while (p->dense < f->n_gid && f->gid_func[p->dense] != NONE)
    p->dense++;
  for (unsigned i = 0; i < p->n; i++) {
    worker *w = &p->w[i];
    f->s->samples_in_runtime += w->sess.samples_in_runtime - w->base_in_rt;
    w->sess = *f->s;
    w->base_in_rt = w->sess.samples_in_runtime;
    w->file = *f;
    w->file.s = &w->sess;
  }
}

/* Replays every queued batch, applying the stopped ones on the calling
 * thread in file order once nothing else can run. */
static void drain(pool *p, ip_file *f, ip_take_record take) {
  pthread_mutex_lock(&p->mu);
  while (p->head) {
    if (help(p, f))
      continue;
    slot *sl = p->head; /* STOPPED, the oldest */
    pthread_mutex_unlock(&p->mu);
    decode(&p->dec, &sl->raw);
    take(f, p->dec.rec);
    drop(&p->dec);
    if (sl->has_gap)
      ip_replay_gap(f, sl->ts, &sl->gap);
    refresh(p, f);
    pthread_mutex_lock(&p->mu);
    unlink_slot(p, sl);
    if (p->idle && p->head) /* a batch of sl's thread may be ready now */
      pthread_cond_signal(&p->work);
  }
  pthread_mutex_unlock(&p->mu);
  refresh(p, f);
}

/* The replay state of tid when it already exists and is live, else NULL. */
static ip_tstate *live_state(ip_file *f, uint32_t tid) {
  uint32_t i = ip_u64map_get(&f->tid_state, tid);
  return i != NONE && !f->states[i]->finished ? f->states[i] : NULL;
}

/* Queues for ts the batch in *raw (swapped with a free slot's buffer), or
 * else the gap: with the newest entry when that is a batch of ts not yet
 * taken, else in a slot of its own.  Replays batches on the calling thread
 * until a slot is free. */
static void dispatch(pool *p, ip_file *f, ip_take_record take, ip_raw_batch *raw,
                     const Inclprof__Gap *gap, ip_tstate *ts) {
  pthread_mutex_lock(&p->mu);
  slot *last = p->tail;
  if (!raw && last && last->ts == ts && last->state == QUEUED && !last->has_gap) {
    last->has_gap = 1;
    last->gap = *gap;
    pthread_mutex_unlock(&p->mu);
    return;
  }
  while (!p->free)
    if (!help(p, f)) { /* every slot holds a stopped batch */
      pthread_mutex_unlock(&p->mu);
      drain(p, f, take);
      pthread_mutex_lock(&p->mu);
    }
  slot *sl = p->free;
  p->free = sl->next;
  pthread_mutex_unlock(&p->mu);
  sl->has_batch = raw != NULL; /* not in the list: no one else touches sl */
  sl->has_gap = !raw;
  if (raw) {
    ip_raw_batch mine = sl->raw;
    sl->raw = *raw;
    *raw = mine;
  } else
    sl->gap = *gap;
  sl->ts = ts;
  sl->state = QUEUED;
  sl->next = NULL;
  pthread_mutex_lock(&p->mu);
  if (p->tail)
    p->tail->next = sl;
  else
    p->head = sl;
  p->tail = sl;
  if (p->idle)
    pthread_cond_signal(&p->work);
  pthread_mutex_unlock(&p->mu);
}

/* Stops and joins the first `started` workers and frees the pool. */
static void finish(pool *p, unsigned started) {
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  for (unsigned i = 0; i < started; i++)
    pthread_join(p->w[i].id, NULL);
  for (size_t k = 0; k < p->n_slots; k++)
    free(p->slots[k].raw.p);
  for (unsigned i = 0; i < p->n; i++)
    ip_batch_buf_free(&p->w[i].dec.buf);
  ip_batch_buf_free(&p->dec.buf);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->room);
  pthread_mutex_destroy(&p->mu);
  free(p->slots);
  free(p->w);
}

int ip_replay_pool_run(ip_file *f, ip_reader *r, unsigned jobs, ip_take_record take, char *err,
                       size_t errlen) {
  pool p = {.n = jobs - 1, .dense = 1, .n_slots = (size_t)SLOTS_PER_JOB * jobs};
  p.w = ip_must_calloc(p.n, sizeof *p.w);
  p.slots = ip_must_calloc(p.n_slots, sizeof *p.slots);
  for (size_t k = 0; k < p.n_slots; k++) {
    p.slots[k].next = p.free;
    p.free = &p.slots[k];
  }
  ip_batch_buf_init(&p.dec.buf);
  for (unsigned i = 0; i < p.n; i++)
    ip_batch_buf_init(&p.w[i].dec.buf);
  pthread_mutex_init(&p.mu, NULL);
  pthread_cond_init(&p.work, NULL);
  pthread_cond_init(&p.room, NULL);
  refresh(&p, f);
  unsigned started = 0;
  for (unsigned i = 0; i < p.n; i++)
    p.w[i].pool = &p;
  while (started < p.n && !pthread_create(&p.w[started].id, NULL, work, &p.w[started]))
    started++;
  Inclprof__Record *rec;
  ip_raw_batch raw = {0};
  int rc;
  while ((rc = ip_reader_next_raw(r, &rec, &raw, err, errlen)) > 0) {
    int gap = rc == 1 && rec->body_case == INCLPROF__RECORD__BODY_GAP;
    ip_tstate *ts = rc == 2 ? live_state(f, raw.tid) : gap ? live_state(f, rec->gap->tid) : NULL;
    if (ts) {
      dispatch(&p, f, take, rc == 2 ? &raw : NULL, gap ? rec->gap : NULL, ts);
      continue;
    }
    /* Anything else, in file order, with no batch queued. */
    drain(&p, f, take);
    if (rc == 2)
      decode(&p.dec, &raw);
    take(f, rc == 2 ? p.dec.rec : rec);
    drop(&p.dec);
    refresh(&p, f);
  }
  drain(&p, f, take);
  finish(&p, started);
  free(raw.p);
  return rc;
}
