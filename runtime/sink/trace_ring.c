/* trace_ring.c - the ring policy of the size limit
 * (INCLPROF_MAX_SIZE_POLICY=ring): the trace is kept as two segment files,
 * <pid>.ipb (the newest) and <pid>.ipb.prev (the one before).  When the
 * newest is full, it becomes the .prev (the older .prev is deleted) and a new
 * <pid>.ipb begins with what a reader needs to start there: the Header, a
 * Segment record (its number, what was deleted so far), every Module,
 * Function, TableRef and MarkName record written so far, and per live thread its last
 * Thread record and a ThreadState (next batch seq, last tick, open frames).
 * To know those, every frame written is looked at here: table records are
 * kept, batches are walked to follow each thread's stack by the rules the
 * converter's replay applies (include/inclprof/stack_rules.h).  The caller (trace_write.c) serializes writes
 * while the ring is on.  Each open frame keeps the tick of its call, so that
 * the end of a call of a function INCLPROF_SNAPSHOT_IF watches gives its
 * duration (snapshot_watch.c). */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_batch_read.h"
#include "frame_read.h"
#include "record_wire.h"
#include "sink/sink.h"
#include "stack_rules.h"
#include "trace_frame.h"
#include "wire_read.h"

/* An open frame, when it opened and the thread's gaps until then. */
typedef struct ring_frame {
  ip_open_frame f;
  uint64_t tick, gaps;
} ring_frame;

struct rthread {
  uint32_t tid; /* 0: free slot */
  uint64_t next_seq, tick;
  uint64_t gaps;         /* ticks the runtime held it (Gap records), with snapshot conditions */
  ip_stack stack;        /* its open frames (ring_frame, keys are gids) */
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
/* when the newest and the .prev segments began (0: the process's start) */
static uint64_t seg_start_tick, prev_start_tick;
static uint64_t dropped_events, dropped_bytes, dropped_batches;
static uint64_t max_size;

/* ---- reading the frames written --------------------------------------- */
static struct rthread *find(uint32_t tid, int add) {
  if (n_used * 2 >= n_slots && add) {
    size_t n = n_slots ? n_slots * 2 : 64;
    struct rthread *t = ip_alloc(n * sizeof *t);
    if (!t)
      return NULL;
    for (size_t i = 0; i < n_slots; i++)
      if (threads[i].tid) {
        size_t j = threads[i].tid & (n - 1);
        while (t[j].tid)
          j = (j + 1) & (n - 1);
        t[j] = threads[i];
      }
    ip_free(threads);
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
      ip_stack_init(&threads[j].stack, NULL, sizeof(ring_frame), 0);
      threads[j].stack.began_inside = (uint8_t)ip_began_inside(tid);
      n_used++;
      return &threads[j];
    }
  }
}

static void forget(uint32_t tid) {
  struct rthread *t = find(tid, 0);
  if (!t)
    return;
  ip_free(t->stack.frames);
  ip_free(t->thread_frame);
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

/* Room for one more open frame; without memory the frame is not opened
 * (ip_stack_event: IP_STACK_FULL). */
static void make_room(ip_stack *s) {
  if (s->depth < s->cap)
    return;
  size_t cap = s->cap ? s->cap * 2 : 64;
  ring_frame *f = ip_realloc(s->frames, cap * sizeof *f);
  if (f) {
    s->frames = f;
    s->cap = cap;
  }
}

/* The ticks and the stack of a batch apart: without snapshot conditions
 * nothing is timed.  Both walks have the stack rules inlined (flatten): a
 * call per event would cost the ring more than the timing does. */
__attribute__((flatten)) static void follow_batch(struct rthread *t, ip_batch_fields *b) {
  uint64_t tick = b->base_tick, d, c;
  while (b->dt.p < b->dt.end && ip_wire_varint(&b->dt.p, b->dt.end, &d)) {
    tick += (uint64_t)((int64_t)d >> 1);
    if (tick > t->tick)
      t->tick = tick;
  }
  while (b->code.p < b->code.end && ip_wire_varint(&b->code.p, b->code.end, &c)) {
    uint32_t code = (uint32_t)c;
    make_room(&t->stack);
    (void)ip_stack_event(&t->stack, code & 7, ip_stack_code_key(code));
    seg_events++;
  }
}

/* Each event with its tick: a frame keeps the tick of its call, and the end
 * of a call of a watched function is timed. */
__attribute__((flatten)) static void time_batch(struct rthread *t, ip_batch_fields *b) {
  uint64_t tick = b->base_tick, d = 0, c;
  ip_stack *s = &t->stack;
  while (b->code.p < b->code.end && ip_wire_varint(&b->code.p, b->code.end, &c)) {
    if (b->dt.p < b->dt.end && ip_wire_varint(&b->dt.p, b->dt.end, &d))
      tick += (uint64_t)((int64_t)d >> 1);
    if (tick > t->tick)
      t->tick = tick;
    uint32_t code = (uint32_t)c, gid = ip_stack_code_key(code);
    make_room(s);
    ip_stack_change ch = ip_stack_event(s, code & 7, gid);
    if (ch == IP_STACK_PUSHED) {
      ring_frame *f = (ring_frame *)ip_stack_at(s, s->depth - 1);
      f->tick = t->tick;
      f->gaps = t->gaps;
    } else if (ch == IP_STACK_POPPED && gid < ip_snapshot_watch_len && ip_snapshot_watch[gid]) {
      /* the call's time by the clock, the runtime's holds of it included */
      const ring_frame *f = (const ring_frame *)ip_stack_at(s, s->depth);
      unsigned cond = ip_snapshot_watch[gid] - 1u;
      if (t->tick - f->tick > ip_snapshot_bound[cond])
        ip_snapshot_call(cond, gid, t->tid, f->tick, t->tick, t->gaps - f->gaps);
    }
    seg_events++;
  }
}

static void see_batch(const uint8_t *p, size_t len) {
  ip_batch_fields b;
  if (!ip_batch_fields_read(p, len, &b))
    return;
  struct rthread *t = find((uint32_t)b.tid, 1);
  seg_batches++;
  if (!t)
    return;
  t->next_seq = b.seq + 1;
  if (ip_snapshots_on())
    time_batch(t, &b);
  else
    follow_batch(t, &b);
}

/* A Gap record: the time the runtime held a thread, which the calls open
 * then do not count. */
static void see_gap(const uint8_t *p, const uint8_t *end) {
  ip_wire_field w;
  uint64_t tid = 0, start = 0, stop = 0;
  while (p < end && ip_wire_next(&p, end, &w))
    if (w.wire == IP_WIRE_VARINT && w.number == IP_TAG_GAP_TID)
      tid = w.value;
    else if (w.wire == IP_WIRE_VARINT && w.number == IP_TAG_GAP_START_TICK)
      start = w.value;
    else if (w.wire == IP_WIRE_VARINT && w.number == IP_TAG_GAP_END_TICK)
      stop = w.value;
  struct rthread *t = find((uint32_t)tid, 0);
  if (t && stop > start)
    t->gaps += stop - start;
}

/* A Function record: its gid and names, for the snapshot conditions. */
static void see_function(const uint8_t *p, const uint8_t *end) {
  ip_wire_field w;
  uint32_t gid = 0;
  const uint8_t *name = NULL, *pretty = NULL;
  size_t name_len = 0, pretty_len = 0;
  while (p < end && ip_wire_next(&p, end, &w)) {
    if (w.number == IP_TAG_FUNCTION_GID && w.wire == IP_WIRE_VARINT)
      gid = (uint32_t)w.value;
    else if (w.number == IP_TAG_FUNCTION_NAME && w.wire == IP_WIRE_LEN)
      name = w.data, name_len = (size_t)w.value;
    else if (w.number == IP_TAG_FUNCTION_PRETTY && w.wire == IP_WIRE_LEN)
      pretty = w.data, pretty_len = (size_t)w.value;
  }
  ip_snapshot_function(gid, name, name_len, pretty, pretty_len);
}

static void keep(uint8_t **buf, size_t *len, size_t *cap, const uint8_t *p, size_t n) {
  if (*len + n > *cap) {
    size_t c = *cap ? *cap * 2 : 65536;
    while (c < *len + n)
      c *= 2;
    uint8_t *b = ip_realloc(*buf, c);
    if (!b)
      return;
    *buf = b;
    *cap = c;
  }
  memcpy(*buf + *len, p, n);
  *len += n;
}

/* The thread of a Thread or ThreadEnd record: its varint field number field. */
static uint32_t tid_of(const uint8_t *p, const uint8_t *end, uint32_t field) {
  ip_wire_field w;
  while (p < end && ip_wire_next(&p, end, &w))
    if (w.number == field && w.wire == IP_WIRE_VARINT)
      return (uint32_t)w.value;
  return 0;
}

static void see_frame(const uint8_t *frame, size_t flen, const uint8_t *rec, size_t rlen) {
  const uint8_t *p = rec;
  ip_wire_field w;
  if (!ip_wire_next(&p, rec + rlen, &w) || w.wire != IP_WIRE_LEN)
    return;
  const uint8_t *body = w.data, *body_end = w.data + w.value;
  struct rthread *t;
  switch (w.number) {
  case IP_TAG_RECORD_HEADER:
    if (!header_frame && (header_frame = ip_alloc(flen)) != NULL) {
      memcpy(header_frame, frame, flen);
      header_len = flen;
    }
    break;
  case IP_TAG_RECORD_FUNCTION:
    if (ip_snapshots_on())
      see_function(body, body_end);
    /* fall through */
  case IP_TAG_RECORD_MODULE:
  case IP_TAG_RECORD_MARK:
  case IP_TAG_RECORD_WINDOW:
  case IP_TAG_RECORD_TABLE_REF:
    keep(&tables, &tables_len, &tables_cap, frame, flen);
    break;
  case IP_TAG_RECORD_THREAD:
    t = find(tid_of(body, body_end, IP_TAG_THREAD_TID), 1);
    if (t) {
      uint8_t *c = ip_realloc(t->thread_frame, flen);
      if (c) {
        memcpy(c, frame, flen);
        t->thread_frame = c;
        t->thread_frame_len = flen;
      }
    }
    break;
  case IP_TAG_RECORD_THREAD_END:
    forget(tid_of(body, body_end, IP_TAG_THREAD_END_TID));
    break;
  case IP_TAG_RECORD_EVENTS:
    see_batch(body, (size_t)w.value);
    break;
  case IP_TAG_RECORD_GAP:
    if (ip_snapshots_on())
      see_gap(body, body_end);
    break;
  default:
    break;
  }
}

void ip_ring_seen(const uint8_t *frames, size_t len) {
  ip_frame_view f;
  for (size_t at = 0; at < len && ip_frame_next(frames + at, len - at, &f) == IP_FRAME_OK;
       at += f.size)
    see_frame(frames + at, f.size, f.record, f.record_len);
}

/* ---- starting a segment ------------------------------------------------ */
static int put(int fd, const uint8_t *p, size_t n, uint64_t *total) {
  int e = ip_write_all(fd, (const char *)p, n);
  if (!e)
    *total += n;
  return e;
}

static int put_record(int fd, const Inclprof__Record *rec, uint64_t *total) {
  uint8_t stack[4096];
  size_t max = ip_frame_max_size(rec);
  uint8_t *buf = max <= sizeof stack ? stack : ip_alloc(max);
  if (!buf)
    return ENOMEM;
  int err = put(fd, buf, ip_frame_encode(rec, buf), total);
  if (buf != stack)
    ip_free(buf);
  return err;
}

static int put_state(int fd, const struct rthread *t, uint64_t *total) {
  uint32_t stack_codes[256];
  const ip_stack *st = &t->stack;
  size_t cap = st->depth * 2;
  uint32_t *codes = cap <= 256 ? stack_codes : ip_alloc(cap * sizeof *codes);
  if (!codes)
    return ENOMEM;
  Inclprof__ThreadState s = INCLPROF__THREAD_STATE__INIT;
  s.tid = t->tid;
  s.has_next_seq = s.has_paused = s.has_call_open = s.has_expect_ret = 1;
  s.next_seq = t->next_seq;
  s.has_tick = t->tick != 0; /* none: no batch of the thread's written yet */
  s.tick = t->tick;
  s.n_open = ip_stack_open_codes(st, codes);
  s.open = codes;
  s.paused = st->paused != 0;
  s.call_open = st->call_open != 0;
  s.expect_ret = st->expect_ret == IP_STACK_NO_KEY ? 0 : st->expect_ret;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_THREAD_STATE;
  rec.thread_state = &s;
  int err = put_record(fd, &rec, total);
  if (codes != stack_codes)
    ip_free(codes);
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
  sg.start_tick = seg_start_tick = ip_tick_cold();
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
  char prev[sizeof ip_st.path + 8], held[sizeof ip_st.path + 8];
  snprintf(prev, sizeof prev, "%s.prev", path);
  snprintf(held, sizeof held, "%s.held", path);
  *start_bytes = UINT64_MAX; /* until fd is the new segment */
  /* A window waiting for its snapshot needs the .prev about to be deleted:
   * it is kept aside until the snapshot is written (replacing an older one). */
  if (have_prev && ip_snapshots_need(seg_start_tick))
    (void)rename(prev, held);
  else
    unlink(held); /* no window needs it, nor the .prev it came before */
  prev_start_tick = seg_start_tick;
  if (rename(path, prev) != 0)
    return errno;
  int nfd = ip_ring_fd_open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND, 0644);
  if (nfd < 0)
    return errno;
  if (dup3(nfd, fd, O_CLOEXEC) < 0) {
    int err = errno;
    ip_ring_fd_close(nfd);
    return err;
  }
  ip_ring_fd_close(nfd);
  if (have_prev) {
    dropped_events += prev_events;
    dropped_batches += prev_batches;
    dropped_bytes += prev_bytes;
    atomic_store(&ip_st.ring_dropped_events, dropped_events);
    atomic_store(&ip_st.ring_dropped_bytes, dropped_bytes);
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
  seg_start_tick = prev_start_tick = 0;
  dropped_events = dropped_bytes = dropped_batches = 0;
  atomic_store(&ip_st.ring_dropped_events, 0);
  atomic_store(&ip_st.ring_dropped_bytes, 0);
  max_size = max_bytes;
}

/* What a snapshot starts with: copies of the Header and of the table
 * records so far, Window records left out (a snapshot is its own window). */
int ip_ring_snapshot_source(struct ip_snapshot_source *src) {
  char held[sizeof ip_st.path + 8];
  snprintf(held, sizeof held, "%s.held", ip_st.path);
  src->held_fd = ip_ring_fd_open(held, O_RDONLY, 0);
  src->header = header_len ? ip_alloc(header_len) : NULL;
  src->tables = tables_len ? ip_alloc(tables_len) : NULL;
  if ((header_len && !src->header) || (tables_len && !src->tables))
    return -1;
  if (header_len)
    memcpy(src->header, header_frame, header_len);
  src->header_len = header_len;
  ip_frame_view f;
  for (size_t at = 0;
       at < tables_len && ip_frame_next(tables + at, tables_len - at, &f) == IP_FRAME_OK;
       at += f.size) {
    const uint8_t *p = f.record;
    ip_wire_field w;
    if (ip_wire_next(&p, f.record + f.record_len, &w) && w.number == IP_TAG_RECORD_WINDOW)
      continue;
    memcpy(src->tables + src->tables_len, tables + at, f.size);
    src->tables_len += f.size;
  }
  return 0;
}

/* The segment kept aside for the windows waiting, once none needs it. */
void ip_ring_snapshot_release(int all) {
  if (!all && ip_snapshots_need(prev_start_tick))
    return;
  char held[sizeof ip_st.path + 8];
  snprintf(held, sizeof held, "%s.held", ip_st.path);
  unlink(held);
}
