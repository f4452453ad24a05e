/* trace_index.c - the trace's Index (docs/trace-format.md, "Index and
 * Footer"): what the frames appended so far hold, noted as each is written -
 * per thread its name, why it has no transition counter, its events,
 * batches, skipped batch numbers, Gap records and kernel-event losses; the Module and TableRef
 * records; the Function and MarkName counts - and encoded with every Trailer
 * as one run of bytes for one write: Index, Trailer, then the fixed-size
 * Footer that ends the file, so that a reader describes the trace from its
 * last bytes.  Field numbers: record_wire.h.  Not kept under the ring
 * policy (each segment repeats its tables).  No allocation while frames are
 * noted (a flush may run in a signal handler); the final bytes are in a
 * mapping of their own. */
#include <string.h>
#include <sys/mman.h>

#include "event_batch_read.h"
#include "frame_read.h"
#include "record_wire.h"
#include "sink/sink.h"
#include "trace_footer.h"
#include "trace_frame.h"
#include "wire_read.h"

#define MAX_THREADS  4096u  /* threads the index follows; more: it is incomplete */
#define TID_SLOTS    8192u  /* open addressing, a power of two above MAX_THREADS */
#define MODULE_BYTES 65536u /* Module records kept (as Index.modules fields) */
#define TABLE_BYTES  16384u /* TableRef records kept (as Index.tables fields) */
#define NAME_LEN     64u
#define WHY_LEN      64u
#define STOP_LEN     96u

_Static_assert((int)IP_TAG_RECORD_MODULE == (int)IP_TAG_INDEX_MODULES,
               "a Module record's bytes are an Index's modules field as they are");

struct ix_thread {
  uint32_t tid;
  int ended, alive_at_exit;
  uint64_t events, batches, lost, gaps, kernel_lost, next_seq;
  char name[NAME_LEN];
  char why[WHY_LEN];      /* no_transitions */
  char stopped[STOP_LEN]; /* its ThreadEnd's stopped */
};

static pthread_mutex_t index_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static int index_on;
static const char *incomplete; /* why the index does not describe the file */
static struct ix_thread threads[MAX_THREADS];
static uint32_t n_threads;
static uint32_t tid_slot[TID_SLOTS]; /* 1 + index of the tid's newest thread, 0 empty */
static uint8_t modules[MODULE_BYTES];
static size_t modules_len;
static uint8_t tables[TABLE_BYTES];
static size_t tables_len;
static uint64_t functions, marks;

void ip_index_start(int on) {
  ip_mutex_init(&index_lock); /* a fork child's may be held by a parent's thread */
  index_on = on;
  incomplete = NULL;
  n_threads = 0;
  memset(tid_slot, 0, sizeof tid_slot);
  modules_len = tables_len = 0;
  functions = marks = 0;
}

/* The Record's field number and its body, from one frame's record bytes. */
static uint32_t record_body(const uint8_t *rec, size_t len, ip_wire_field *body) {
  const uint8_t *p = rec;
  if (!ip_wire_next(&p, rec + len, body) || body->wire != IP_WIRE_LEN)
    return 0;
  return body->number;
}

/* The thread of tid, its newest; a new one when there is none or it ended. */
static struct ix_thread *thread_of(uint32_t tid) {
  uint32_t h = (tid * 2654435761u) & (TID_SLOTS - 1);
  while (tid_slot[h] && threads[tid_slot[h] - 1].tid != tid)
    h = (h + 1) & (TID_SLOTS - 1);
  if (tid_slot[h] && !threads[tid_slot[h] - 1].ended)
    return &threads[tid_slot[h] - 1];
  if (n_threads == MAX_THREADS) {
    incomplete = "more than 4096 threads";
    return NULL;
  }
  struct ix_thread *t = &threads[n_threads++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  tid_slot[h] = n_threads;
  return t;
}

static void copy_text(char *to, size_t cap, const ip_wire_field *f) {
  size_t n = f->value < cap - 1 ? (size_t)f->value : cap - 1;
  memcpy(to, f->data, n);
  to[n] = 0;
}

/* A Thread record: its thread, name and no_transitions. */
static void see_thread(const uint8_t *p, const uint8_t *end) {
  ip_wire_field f;
  uint64_t tid = 0;
  const uint8_t *q = p;
  while (q < end && ip_wire_next(&q, end, &f))
    if (f.number == IP_TAG_THREAD_TID && f.wire == IP_WIRE_VARINT)
      tid = f.value;
  struct ix_thread *t = thread_of((uint32_t)tid);
  while (t && p < end && ip_wire_next(&p, end, &f))
    if (f.number == IP_TAG_THREAD_NAME && f.wire == IP_WIRE_LEN)
      copy_text(t->name, sizeof t->name, &f);
    else if (f.number == IP_TAG_THREAD_NO_TRANSITIONS && f.wire == IP_WIRE_LEN && !t->why[0])
      copy_text(t->why, sizeof t->why, &f);
}

static void see_thread_end(const uint8_t *p, const uint8_t *end) {
  ip_wire_field f;
  uint64_t tid = 0;
  int alive = 0, has_tick = 0;
  ip_wire_field stopped = {0};
  while (p < end && ip_wire_next(&p, end, &f))
    if (f.number == IP_TAG_THREAD_END_STOPPED && f.wire == IP_WIRE_LEN)
      stopped = f;
    else if (f.number == IP_TAG_THREAD_END_TID)
      tid = f.value;
    else if (f.number == IP_TAG_THREAD_END_TICK)
      has_tick = 1;
    else if (f.number == IP_TAG_THREAD_END_ALIVE)
      alive = f.value != 0;
  struct ix_thread *t = thread_of((uint32_t)tid);
  if (t) {
    t->alive_at_exit |= alive && has_tick;
    if (stopped.data)
      copy_text(t->stopped, sizeof t->stopped, &stopped);
    t->ended = 1;
  }
}

static void see_gap(const uint8_t *p, const uint8_t *end) {
  ip_wire_field f;
  uint64_t tid = 0;
  while (p < end && ip_wire_next(&p, end, &f))
    if (f.number == IP_TAG_GAP_TID)
      tid = f.value;
  struct ix_thread *t = thread_of((uint32_t)tid);
  if (t)
    t->gaps++;
}

static void see_batch(const ip_batch_fields *b, uint64_t events, uint64_t kernel_lost) {
  struct ix_thread *t = thread_of((uint32_t)b->tid);
  if (!t)
    return;
  if (b->seq > t->next_seq)
    t->lost += b->seq - t->next_seq;
  t->next_seq = b->seq + 1;
  t->batches++;
  t->events += events;
  t->kernel_lost += kernel_lost;
}

/* Varints in a packed array: its bytes that end one (below 0x80), counted
 * eight at a time (each byte's top bit moved to its lowest, the eight summed
 * by one multiplication): the index sees every batch on the flush path. */
static uint64_t varints(ip_wire_span s) {
  uint64_t n = 0;
  const uint8_t *p = s.p;
  for (; s.end - p >= 8; p += 8) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
    n += 8 - ((((w & 0x8080808080808080ull) >> 7) * 0x0101010101010101ull) >> 56);
  }
  for (; p < s.end; p++)
    n += *p < 0x80;
  return n;
}

/* The KEV_LOST records among a batch's kernel_dt varints: a varint's low
 * three bits (its record's kind) are in its first byte. */
static uint64_t kev_lost_records(ip_wire_span s) {
  uint64_t n = 0;
  int first = 1;
  for (const uint8_t *p = s.p; p < s.end; p++) {
    n += first && (*p & 7u) == INCLPROF__KERNEL_EVENT_KIND__KEV_LOST;
    first = *p < 0x80;
  }
  return n;
}

/* One record. */
static void see_record(const uint8_t *rec, size_t len) {
  ip_wire_field body, f;
  const uint8_t *p, *end;
  ip_batch_fields b = {0};
  uint64_t events = 0, kernel_lost = 0;
  uint32_t kind = record_body(rec, len, &body);
  if (kind == IP_TAG_RECORD_EVENTS) { /* counted before the lock is taken */
    if (!ip_batch_fields_read(body.data, (size_t)body.value, &b))
      return;
    uint64_t dt = varints(b.dt), code = varints(b.code);
    events = dt < code ? dt : code;
    kernel_lost = (b.kernel_lost != 0) + kev_lost_records(b.kernel_dt);
  }
  if (!ip_lock(&index_lock, 0)) {
    incomplete = "a frame was written while the index was being updated (a signal handler)";
    return;
  }
  p = body.data;
  end = p + body.value;
  switch (kind) {
  case IP_TAG_RECORD_MODULE:
    if (modules_len + len > MODULE_BYTES)
      incomplete = "more than 64 KB of Module records";
    else { /* the bytes as they are: Record.module and Index.modules alike */
      memcpy(modules + modules_len, rec, len);
      modules_len += len;
    }
    break;
  case IP_TAG_RECORD_TABLE_REF:
    if (tables_len + 12 + body.value > TABLE_BYTES) {
      incomplete = "more than 16 KB of TableRef records";
    } else { /* the body as an Index.tables field */
      uint8_t *o = ip_put_varint(tables + tables_len, IP_TAG_INDEX_TABLES << 3 | IP_WIRE_LEN);
      o = ip_put_varint(o, body.value);
      memcpy(o, body.data, (size_t)body.value);
      tables_len = (size_t)(o + body.value - tables);
    }
    break;
  case IP_TAG_RECORD_FUNCTION: /* a named one: a call-site callee's binding adds no function */
    while (p < end && ip_wire_next(&p, end, &f))
      if (f.number == IP_TAG_FUNCTION_NAME) {
        functions++;
        break;
      }
    break;
  case IP_TAG_RECORD_MARK:
    marks++;
    break;
  case IP_TAG_RECORD_WINDOW: /* the windows are in the records only */
    incomplete = "recording was switched on or off (Window records)";
    break;
  case IP_TAG_RECORD_THREAD_PROFILE: /* the calls are in the records only */
    incomplete = "an aggregate profile (ThreadProfile records)";
    break;
  case IP_TAG_RECORD_THREAD:
    see_thread(p, end);
    break;
  case IP_TAG_RECORD_THREAD_END:
    see_thread_end(p, end);
    break;
  case IP_TAG_RECORD_GAP:
    see_gap(p, end);
    break;
  case IP_TAG_RECORD_EVENTS:
    see_batch(&b, events, kernel_lost);
    break;
  default: /* header, trailer, index, footer: nothing to count */
    break;
  }
  ip_unlock(&index_lock);
}

void ip_index_seen(const uint8_t *frames, size_t len) {
  if (!index_on)
    return;
  ip_frame_view f;
  for (size_t at = 0; at < len && ip_frame_next(frames + at, len - at, &f) == IP_FRAME_OK;
       at += f.size)
    see_record(f.record, f.record_len);
}

/* ---- encoding ---------------------------------------------------------- */
static uint8_t *put_tag(uint8_t *o, uint32_t field, uint32_t wire) {
  return ip_put_varint(o, IP_WIRE_KEY(field, wire));
}
static uint8_t *put_u64(uint8_t *o, uint32_t field, uint64_t v) {
  return ip_put_varint(put_tag(o, field, IP_WIRE_VARINT), v);
}
static uint8_t *put_text(uint8_t *o, uint32_t field, const char *s) {
  size_t n = strlen(s);
  o = ip_put_varint(put_tag(o, field, IP_WIRE_LEN), n);
  memcpy(o, s, n);
  return o + n;
}

/* One IndexThread's bytes at o; the end. */
static uint8_t *put_thread(uint8_t *o, const struct ix_thread *t) {
  o = put_u64(o, IP_TAG_INDEX_THREAD_TID, t->tid);
  if (t->name[0])
    o = put_text(o, IP_TAG_INDEX_THREAD_NAME, t->name);
  if (t->why[0])
    o = put_text(o, IP_TAG_INDEX_THREAD_NO_TRANSITIONS, t->why);
  o = put_u64(o, IP_TAG_INDEX_THREAD_EVENTS, t->events);
  o = put_u64(o, IP_TAG_INDEX_THREAD_BATCHES, t->batches);
  o = put_u64(o, IP_TAG_INDEX_THREAD_LOST, t->lost);
  o = put_u64(o, IP_TAG_INDEX_THREAD_GAPS, t->gaps);
  if (t->kernel_lost)
    o = put_u64(o, IP_TAG_INDEX_THREAD_KERNEL_LOST, t->kernel_lost);
  if (t->alive_at_exit)
    o = put_u64(o, IP_TAG_INDEX_THREAD_ALIVE, 1);
  if (t->stopped[0])
    o = put_text(o, IP_TAG_INDEX_THREAD_STOPPED, t->stopped);
  return o;
}

#define THREAD_MAX (6 + 3 * 12 + NAME_LEN + WHY_LEN + STOP_LEN + 5 * 11 + 2)

/* Frames the record bytes rec[0..n) moved to o + head (head: the varint of
 * n's room); the frame's end. */
static uint8_t *frame_at(uint8_t *o, size_t head, size_t n) {
  uint8_t *rec = o + head;
  uint8_t *start = ip_put_varint(o, n);
  if (start != rec)
    memmove(start, rec, n);
  return ip_frame_seal(start, n);
}

/* The Index frame at o (at most index_room() bytes); its end. */
static uint8_t *put_index(uint8_t *o, uint64_t offset) {
  size_t head = 10 + 1 + 10; /* frame length, Record tag, Index length */
  uint8_t *body = o + head, *e = body;
  for (uint32_t i = 0; i < n_threads; i++) {
    uint8_t tmp[THREAD_MAX];
    size_t tl = (size_t)(put_thread(tmp, &threads[i]) - tmp);
    e = ip_put_varint(put_tag(e, IP_TAG_INDEX_THREADS, IP_WIRE_LEN), tl);
    memcpy(e, tmp, tl);
    e += tl;
  }
  memcpy(e, modules, modules_len);
  e += modules_len;
  e = put_u64(e, IP_TAG_INDEX_FUNCTIONS, functions);
  e = put_u64(e, IP_TAG_INDEX_MARK_NAMES, marks);
  e = put_u64(e, IP_TAG_INDEX_OFFSET, offset);
  if (incomplete)
    e = put_text(e, IP_TAG_INDEX_INCOMPLETE, incomplete);
  memcpy(e, tables, tables_len);
  e += tables_len;
  size_t body_len = (size_t)(e - body);
  /* Record{index}: its tag and length right before the body */
  size_t rec_head = 1 + ip_varint_len(body_len);
  uint8_t *rec = body - rec_head;
  ip_put_varint(put_tag(rec, IP_TAG_RECORD_INDEX, IP_WIRE_LEN), body_len);
  return frame_at(o, (size_t)(rec - o), rec_head + body_len);
}

static size_t index_room(void) {
  return 21 + (size_t)n_threads * (2 + THREAD_MAX) + modules_len + tables_len + 3 * 11 + 2 +
         WHY_LEN + 100;
}

size_t ip_index_tail(const Inclprof__Record *trailer, uint64_t offset, uint8_t **bytes,
                     size_t *mapped) {
  *bytes = NULL;
  *mapped = 0;
  if (!index_on || !ip_lock(&index_lock, 0))
    return 0;
  size_t cap = index_room() + ip_frame_max_size(trailer) + IP_FOOTER_FRAME_LEN;
  uint8_t *buf = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED) {
    ip_unlock(&index_lock);
    return 0;
  }
  uint8_t *e = put_index(buf, offset);
  size_t ilen = (size_t)(e - buf);
  ip_unlock(&index_lock);
  size_t tlen = ip_frame_encode(trailer, e);
  ip_footer_encode(e + tlen, (uint32_t)ilen, (uint32_t)tlen);
  *bytes = buf;
  *mapped = cap;
  return ilen <= UINT32_MAX ? ilen + tlen + IP_FOOTER_FRAME_LEN : 0;
}

void ip_index_tail_free(uint8_t *bytes, size_t mapped) {
  if (bytes)
    munmap(bytes, mapped);
}
