/* trace_ring.c - the ring policy of the size limit
 * (INCLPROF_MAX_SIZE_POLICY=ring): the trace is kept as two segment files,
 * <pid>.ipb (the newest) and <pid>.ipb.prev (the one before).  When the
 * newest is full, it becomes the .prev (the older .prev is deleted) and a new
 * <pid>.ipb begins with what a reader needs to start there: the Header, a
 * Segment record (its number, what was deleted so far), every Module,
 * Function and MarkName record written so far, and per live thread its last
 * Thread record and a ThreadState (next batch seq, last tick, open frames).
 * To know those, every frame written is looked at here: table records are
 * kept, batches are walked to follow each thread's stack the way the
 * converter's replay does.  The caller (trace_write.c) serializes writes
 * while the ring is on. */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_batch_wire.h"
#include "rt.h"
#include "trace_frame.h"

#define NO_GID UINT32_MAX

struct rthread {
  uint32_t tid; /* 0: free slot */
  uint64_t next_seq, tick;
  uint32_t *open; /* event codes of the open frames, outermost first */
  uint8_t *merged;
  size_t depth, cap;
  int paused, call_open;
  uint32_t expect_ret;
  uint8_t *thread_frame; /* the thread's last Thread record, framed */
  size_t thread_frame_len;
};

static struct rthread *threads; /* open addressing on tid */
static size_t n_slots, n_used;
static uint8_t *header_frame, *tables;
static size_t header_len, tables_len, tables_cap;
static uint32_t segment;
static uint64_t seg_events, seg_batches;   /* in the newest segment */
static uint64_t prev_events, prev_batches; /* in the .prev segment */
static uint64_t prev_bytes;
static int have_prev;
static uint64_t dropped_events, dropped_bytes, dropped_batches;
static uint64_t max_size;

/* ---- reading the frames written --------------------------------------- */
static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t r = 0;
  for (int shift = 0; *p < end && shift < 64; shift += 7) {
    uint8_t b = *(*p)++;
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return 0;
    }
  }
  return -1;
}

/* Next field of a message: its number, and its value (varint) or bytes. */
static int next_field(const uint8_t **p, const uint8_t *end, uint32_t *field, uint64_t *v,
                      const uint8_t **data) {
  uint64_t key;
  if (*p >= end || get_varint(p, end, &key))
    return -1;
  *field = (uint32_t)(key >> 3);
  if ((key & 7) == IP_WIRE_VARINT)
    return get_varint(p, end, v);
  if ((key & 7) != IP_WIRE_LEN || get_varint(p, end, v) || *v > (uint64_t)(end - *p))
    return -1;
  *data = *p;
  *p += *v;
  return 0;
}

static struct rthread *find(uint32_t tid, int add) {
  if (n_used * 2 >= n_slots && add) {
    size_t n = n_slots ? n_slots * 2 : 64;
    struct rthread *t = calloc(n, sizeof *t);
    if (!t)
      return NULL;
    for (size_t i = 0; i < n_slots; i++)
      if (threads[i].tid) {
        size_t j = threads[i].tid & (n - 1);
        while (t[j].tid)
          j = (j + 1) & (n - 1);
        t[j] = threads[i];
      }
    free(threads);
    threads = t;
    n_slots = n;
  }
  if (!n_slots)
    return NULL;
  for (size_t j = tid & (n_slots - 1);; j = (j + 1) & (n_slots - 1)) {
    if (threads[j].tid == tid)
      return &threads[j];
    if (!threads[j].tid) {
      if (!add)
        return NULL;
      memset(&threads[j], 0, sizeof threads[j]);
      threads[j].tid = tid;
      threads[j].expect_ret = NO_GID;
      n_used++;
      return &threads[j];
    }
  }
}

static void forget(uint32_t tid) {
  struct rthread *t = find(tid, 0);
  if (!t)
    return;
  free(t->open);
  free(t->merged);
  free(t->thread_frame);
  /* Re-insert the rest of the cluster so lookups keep finding them. */
  size_t j = (size_t)(t - threads);
  t->tid = 0;
  n_used--;
  for (size_t k = (j + 1) & (n_slots - 1); threads[k].tid; k = (k + 1) & (n_slots - 1)) {
    struct rthread moved = threads[k];
    threads[k].tid = 0;
    size_t h = moved.tid & (n_slots - 1);
    while (threads[h].tid)
      h = (h + 1) & (n_slots - 1);
    threads[h] = moved;
  }
}

static int push(struct rthread *t, uint32_t code) {
  if (t->depth == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    uint32_t *o = realloc(t->open, cap * sizeof *o);
    if (o)
      t->open = o;
    uint8_t *m = o ? realloc(t->merged, cap) : NULL;
    if (!m)
      return -1;
    t->merged = m;
    t->cap = cap;
  }
  t->open[t->depth] = code;
  t->merged[t->depth++] = 0;
  return 0;
}

/* Pops down to and including the nearest frame of gid: its merged flag, or
 * -1 when gid is not open (the converter then ignores the exit too). */
static int pop_to(struct rthread *t, uint32_t gid) {
  size_t k = t->depth;
  while (k > 0 && t->open[k - 1] >> 3 != gid)
    k--;
  if (!k)
    return -1;
  t->depth = k - 1;
  return t->merged[k - 1];
}

/* The converter's stack rules (convert/model/replay.c), on event codes. */
static void follow(struct rthread *t, uint32_t code) {
  uint32_t gid = code >> 3;
  int merged;
  switch (code & 7) {
  case INCLPROF__EVENT_KIND__EV_ENTER:
    if (t->call_open && t->depth && t->open[t->depth - 1] >> 3 == gid)
      t->merged[t->depth - 1] = 1;
    else
      (void)push(t, code);
    t->call_open = 0;
    t->expect_ret = NO_GID;
    break;
  case INCLPROF__EVENT_KIND__EV_CALL:
    t->call_open = push(t, code) == 0;
    t->expect_ret = NO_GID;
    break;
  case INCLPROF__EVENT_KIND__EV_EXIT:
    merged = pop_to(t, gid);
    t->call_open = 0;
    t->expect_ret = merged > 0 ? gid : NO_GID;
    break;
  case INCLPROF__EVENT_KIND__EV_RET:
    if (t->expect_ret != gid)
      (void)pop_to(t, gid);
    t->call_open = 0;
    t->expect_ret = NO_GID;
    break;
  case INCLPROF__EVENT_KIND__EV_PAUSE:
    t->paused = 1;
    break;
  case INCLPROF__EVENT_KIND__EV_RESUME:
    t->paused = 0;
    break;
  default:
    break;
  }
}

static void see_batch(const uint8_t *p, const uint8_t *end) {
  uint32_t field, tid = 0;
  uint64_t v, seq = 0, base = 0;
  const uint8_t *data = NULL, *dt = NULL, *dt_end = NULL, *code = NULL, *code_end = NULL;
  while (p < end && next_field(&p, end, &field, &v, &data) == 0) {
    if (field == IP_TAG_BATCH_TID)
      tid = (uint32_t)v;
    else if (field == IP_TAG_BATCH_SEQ)
      seq = v;
    else if (field == IP_TAG_BATCH_BASE_TICK)
      base = v;
    else if (field == IP_TAG_BATCH_DT)
      dt = data, dt_end = data + v;
    else if (field == IP_TAG_BATCH_CODE)
      code = data, code_end = data + v;
  }
  struct rthread *t = find(tid, 1);
  seg_batches++;
  if (!t)
    return;
  t->next_seq = seq + 1;
  uint64_t tick = base, d, c;
  while (dt && dt < dt_end && get_varint(&dt, dt_end, &d) == 0) {
    tick += (uint64_t)((int64_t)d >> 1);
    if (tick > t->tick)
      t->tick = tick;
  }
  while (code && code < code_end && get_varint(&code, code_end, &c) == 0) {
    follow(t, (uint32_t)c);
    seg_events++;
  }
}

static void keep(uint8_t **buf, size_t *len, size_t *cap, const uint8_t *p, size_t n) {
  if (*len + n > *cap) {
    size_t c = *cap ? *cap * 2 : 65536;
    while (c < *len + n)
      c *= 2;
    uint8_t *b = realloc(*buf, c);
    if (!b)
      return;
    *buf = b;
    *cap = c;
  }
  memcpy(*buf + *len, p, n);
  *len += n;
}

static uint32_t tid_of(const uint8_t *p, const uint8_t *end) {
  uint32_t field;
  uint64_t v;
  const uint8_t *data;
  while (p < end && next_field(&p, end, &field, &v, &data) == 0)
    if (field == 1)
      return (uint32_t)v;
  return 0;
}

static void see_frame(const uint8_t *frame, size_t flen, const uint8_t *rec, size_t rlen) {
  const uint8_t *p = rec, *end = rec + rlen, *body;
  uint32_t field;
  uint64_t v;
  if (next_field(&p, end, &field, &v, &body) != 0)
    return;
  const uint8_t *body_end = body + v;
  struct rthread *t;
  switch (field) {
  case INCLPROF__RECORD__BODY_HEADER:
    if (!header_frame && (header_frame = malloc(flen)) != NULL) {
      memcpy(header_frame, frame, flen);
      header_len = flen;
    }
    break;
  case INCLPROF__RECORD__BODY_MODULE:
  case INCLPROF__RECORD__BODY_FUNCTION:
  case INCLPROF__RECORD__BODY_MARK:
  case INCLPROF__RECORD__BODY_WINDOW:
    keep(&tables, &tables_len, &tables_cap, frame, flen);
    break;
  case INCLPROF__RECORD__BODY_THREAD:
    t = find(tid_of(body, body_end), 1);
    if (t) {
      uint8_t *c = realloc(t->thread_frame, flen);
      if (c) {
        memcpy(c, frame, flen);
        t->thread_frame = c;
        t->thread_frame_len = flen;
      }
    }
    break;
  case INCLPROF__RECORD__BODY_THREAD_END:
    forget(tid_of(body, body_end));
    break;
  case INCLPROF__RECORD__BODY_EVENTS:
    see_batch(body, body_end);
    break;
  default:
    break;
  }
}

void ip_ring_seen(const uint8_t *frames, size_t len) {
  const uint8_t *p = frames, *end = frames + len;
  while (p < end) {
    const uint8_t *start = p;
    uint64_t n;
    if (get_varint(&p, end, &n) || n + 4 > (uint64_t)(end - p))
      return;
    see_frame(start, (size_t)(p - start) + (size_t)n + 4, p, (size_t)n);
    p += n + 4;
  }
}

/* ---- starting a segment ------------------------------------------------ */
static int put(int fd, const uint8_t *p, size_t n, uint64_t *total) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return w < 0 ? errno : ENOSPC;
    p += w;
    n -= (size_t)w;
    *total += (uint64_t)w;
  }
  return 0;
}

static int put_record(int fd, const Inclprof__Record *rec, uint64_t *total) {
  uint8_t stack[4096];
  size_t max = ip_frame_max_size(rec);
  uint8_t *buf = max <= sizeof stack ? stack : malloc(max);
  if (!buf)
    return ENOMEM;
  int err = put(fd, buf, ip_frame_encode(rec, buf), total);
  if (buf != stack)
    free(buf);
  return err;
}

static int put_state(int fd, const struct rthread *t, uint64_t *total) {
  uint32_t stack_codes[256];
  size_t n = 0, cap = t->depth * 2;
  uint32_t *codes = cap <= 256 ? stack_codes : malloc(cap * sizeof *codes);
  if (!codes)
    return ENOMEM;
  for (size_t i = 0; i < t->depth; i++) {
    codes[n++] = t->open[i];
    if (t->merged[i])
      codes[n++] = t->open[i] & ~7u; /* ENTER of the same gid (EV_ENTER is 0) */
  }
  Inclprof__ThreadState s = INCLPROF__THREAD_STATE__INIT;
  s.tid = t->tid;
  s.has_next_seq = s.has_tick = s.has_paused = s.has_call_open = s.has_expect_ret = 1;
  s.next_seq = t->next_seq;
  s.tick = t->tick;
  s.n_open = n;
  s.open = codes;
  s.paused = t->paused != 0;
  s.call_open = t->call_open != 0;
  s.expect_ret = t->expect_ret == NO_GID ? 0 : t->expect_ret;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_THREAD_STATE;
  rec.thread_state = &s;
  int err = put_record(fd, &rec, total);
  if (codes != stack_codes)
    free(codes);
  return err;
}

/* Everything a segment starts with, written to fd; *total gets its size. */
static int put_start(int fd, uint64_t *total) {
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  int err = put(fd, pre, sizeof pre, total);
  if (!err && header_frame)
    err = put(fd, header_frame, header_len, total);
  Inclprof__Segment sg = INCLPROF__SEGMENT__INIT;
  sg.number = segment;
  sg.has_start_tick = sg.has_max_size = sg.has_dropped_bytes = sg.has_dropped_events = 1;
  sg.has_dropped_batches = 1;
  sg.start_tick = ip_tick();
  sg.max_size = max_size;
  sg.dropped_bytes = dropped_bytes;
  sg.dropped_events = dropped_events;
  sg.dropped_batches = dropped_batches;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_SEGMENT;
  rec.segment = &sg;
  if (!err)
    err = put_record(fd, &rec, total);
  if (!err && tables_len)
    err = put(fd, tables, tables_len, total);
  for (size_t i = 0; i < n_slots && !err; i++) {
    const struct rthread *t = &threads[i];
    if (!t->tid)
      continue;
    if (t->thread_frame)
      err = put(fd, t->thread_frame, t->thread_frame_len, total);
    if (!err)
      err = put_state(fd, t, total);
  }
  return err;
}

int ip_ring_rotate(int fd, const char *path, uint64_t bytes_now, uint64_t *start_bytes) {
  char prev[sizeof ip_st.path + 8];
  snprintf(prev, sizeof prev, "%s.prev", path);
  *start_bytes = UINT64_MAX; /* until fd is the new segment */
  if (rename(path, prev) != 0)
    return errno;
  int nfd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND, 0644);
  if (nfd < 0)
    return errno;
  if (dup3(nfd, fd, O_CLOEXEC) < 0) {
    int err = errno;
    close(nfd);
    return err;
  }
  close(nfd);
  if (have_prev) {
    dropped_events += prev_events;
    dropped_batches += prev_batches;
    dropped_bytes += prev_bytes;
  }
  have_prev = 1;
  prev_events = seg_events;
  prev_batches = seg_batches;
  prev_bytes = bytes_now;
  seg_events = seg_batches = 0;
  segment++;
  *start_bytes = 0;
  return put_start(fd, start_bytes);
}

/* At start-up, and in a fork child, whose copy of the parent's state may
 * have been caught mid-update by the fork: it is left, not freed. */
void ip_ring_start(uint64_t max_bytes) {
  threads = NULL;
  header_frame = tables = NULL;
  n_slots = n_used = header_len = tables_len = tables_cap = 0;
  segment = 0;
  seg_events = seg_batches = prev_events = prev_batches = prev_bytes = 0;
  have_prev = 0;
  dropped_events = dropped_bytes = dropped_batches = 0;
  max_size = max_bytes;
}

void ip_ring_dropped(uint64_t *events, uint64_t *bytes) {
  *events = dropped_events;
  *bytes = dropped_bytes;
}
