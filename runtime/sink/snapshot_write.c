/* snapshot_write.c - writes one snapshot: the window [from, to] around a
 * slow call, read back from the ring's segment files (the .prev, then the
 * newest up to its last whole frame), as a trace of its own that every
 * reader takes as it is: the Header, a Snapshot record, the tables, then per
 * thread alive in the window its Thread record and a ThreadState at `from`
 * (its open frames then, followed through its events before the window by
 * the replay's rules, include/inclprof/stack_rules.h), its events inside the
 * window (batches cut to it, with their numbers), its Gap records inside
 * it, a ThreadEnd at `to` for a thread still alive then, and a Trailer. */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event_batch_read.h"
#include "frame_read.h"
#include "record_wire.h"
#include "rt.h"
#include "stack_rules.h"
#include "trace_frame.h"
#include "wire_read.h"

struct sthread {
  uint32_t tid;
  uint8_t *thread_frame; /* its last Thread record, framed */
  size_t thread_frame_len;
  ip_stack stack; /* its open frames before the window */
  uint64_t next_seq, tick;
  uint8_t known;   /* its state before the window is known */
  uint8_t emitted; /* its Thread record and state are written */
  uint8_t ended;   /* its ThreadEnd is written, or it ended before the window */
  uint8_t past;    /* an event after the window was seen */
};

struct snap {
  int fd, err;
  uint64_t from, to, events, batches;
  struct sthread *th;
  size_t n_th, cap_th;
  /* one batch cut to the window */
  uint64_t *dt, *samples, *kdt;
  uint32_t *code;
  size_t cap_ev, cap_k;
};

static void put(struct snap *s, const uint8_t *p, size_t n) {
  while (n && !s->err) {
    ssize_t w = write(s->fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      s->err = w < 0 ? errno : ENOSPC;
      return;
    }
    p += w;
    n -= (size_t)w;
  }
}

static void put_record(struct snap *s, const Inclprof__Record *rec) {
  uint8_t stack[4096];
  size_t max = ip_frame_max_size(rec);
  uint8_t *buf = max <= sizeof stack ? stack : ip_alloc(max);
  if (!buf) {
    s->err = ENOMEM;
    return;
  }
  put(s, buf, ip_frame_encode(rec, buf));
  if (buf != stack)
    ip_free(buf);
}

static struct sthread *thread_of(struct snap *s, uint32_t tid) {
  for (size_t i = 0; i < s->n_th; i++)
    if (s->th[i].tid == tid)
      return &s->th[i];
  if (s->n_th == s->cap_th) {
    size_t cap = s->cap_th ? s->cap_th * 2 : 16;
    struct sthread *t = ip_realloc(s->th, cap * sizeof *t);
    if (!t)
      return NULL;
    s->th = t;
    s->cap_th = cap;
  }
  struct sthread *x = &s->th[s->n_th++];
  memset(x, 0, sizeof *x);
  x->tid = tid;
  ip_stack_init(&x->stack, NULL, sizeof(ip_open_frame), 0);
  return x;
}

static void stack_event(struct sthread *x, uint32_t code) {
  ip_stack *st = &x->stack;
  if (st->depth == st->cap) {
    size_t cap = st->cap ? st->cap * 2 : 64;
    ip_open_frame *f = ip_realloc(st->frames, cap * sizeof *f);
    if (f) {
      st->frames = f;
      st->cap = cap;
    }
  }
  (void)ip_stack_event(st, code & 7, code >> 3);
}

/* The thread's Thread record and, when its past is known, its state at
 * the window's start; seq: the number of its first batch written. */
static void emit(struct snap *s, struct sthread *x, uint64_t seq) {
  x->emitted = 1;
  if (x->thread_frame)
    put(s, x->thread_frame, x->thread_frame_len);
  if (!x->known)
    return;
  const ip_stack *st = &x->stack;
  uint32_t *codes = st->depth ? ip_alloc(st->depth * 2 * sizeof *codes) : NULL;
  if (st->depth && !codes) {
    s->err = ENOMEM;
    return;
  }
  Inclprof__ThreadState ts = INCLPROF__THREAD_STATE__INIT;
  ts.tid = x->tid;
  ts.has_next_seq = ts.has_tick = ts.has_paused = ts.has_call_open = ts.has_expect_ret = 1;
  ts.next_seq = seq;
  ts.tick = s->from;
  ts.n_open = st->depth ? ip_stack_open_codes(st, codes) : 0;
  ts.open = codes;
  ts.paused = st->paused != 0;
  ts.call_open = st->call_open != 0;
  ts.expect_ret = st->expect_ret == IP_STACK_NO_KEY ? 0 : st->expect_ret;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_THREAD_STATE;
  rec.thread_state = &ts;
  put_record(s, &rec);
  ip_free(codes);
}

static void put_thread_end(struct snap *s, uint32_t tid, uint64_t tick, int alive) {
  Inclprof__ThreadEnd e = INCLPROF__THREAD_END__INIT;
  e.tid = tid;
  e.has_end_tick = e.has_alive_at_exit = 1;
  e.end_tick = tick;
  e.alive_at_exit = alive != 0;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_THREAD_END;
  rec.thread_end = &e;
  put_record(s, &rec);
}

static int room(struct snap *s, size_t n) {
  if (n <= s->cap_ev)
    return 1;
  size_t cap = s->cap_ev ? s->cap_ev : 16384;
  while (cap < n)
    cap *= 2;
  uint64_t *dt = ip_realloc(s->dt, cap * sizeof *dt),
           *sa = dt ? ip_realloc(s->samples, cap * 8) : 0;
  uint32_t *code = sa ? ip_realloc(s->code, cap * sizeof *code) : NULL;
  if (dt)
    s->dt = dt;
  if (sa)
    s->samples = sa;
  if (!code)
    return 0;
  s->code = code;
  s->cap_ev = cap;
  return 1;
}

/* The kernel-event records of b inside the window, into eb. */
static void cut_kernel(struct snap *s, const ip_batch_fields *b, Inclprof__EventBatch *eb) {
  uint64_t ktick = b->kernel_base_tick, v, prev = 0;
  size_t n = 0;
  for (const uint8_t *p = b->kernel_dt.p;
       p < b->kernel_dt.end && ip_wire_varint(&p, b->kernel_dt.end, &v);) {
    ktick += v >> 3;
    if (ktick < s->from || ktick > s->to)
      continue;
    if (n == s->cap_k) {
      size_t cap = s->cap_k ? s->cap_k * 2 : 1024;
      uint64_t *k = ip_realloc(s->kdt, cap * sizeof *k);
      if (!k)
        break;
      s->kdt = k;
      s->cap_k = cap;
    }
    if (!n)
      eb->kernel_base_tick = prev = ktick;
    s->kdt[n++] = (ktick - prev) << 3 | (v & 7);
    prev = ktick;
  }
  eb->has_kernel_base_tick = n > 0;
  eb->n_kernel_dt = n;
  eb->kernel_dt = s->kdt;
  eb->has_kernel_lost = eb->kernel_lost = b->kernel_lost != 0;
}

static void take_batch(struct snap *s, const uint8_t *body, size_t len) {
  ip_batch_fields b;
  if (!ip_batch_fields_read(body, len, &b))
    return;
  struct sthread *x = thread_of(s, (uint32_t)b.tid);
  if (!x || x->ended || x->past)
    return;
  x->next_seq = b.seq + 1;
  uint64_t tick = b.base_tick, d = 0, c, sa;
  uint64_t last = tick; /* the tick before the next event kept */
  size_t n = 0, ns = 0;
  const uint8_t *dp = b.dt.p, *sp = b.sample_addr.p;
  for (const uint8_t *cp = b.code.p; cp < b.code.end && ip_wire_varint(&cp, b.code.end, &c);) {
    if (dp < b.dt.end && ip_wire_varint(&dp, b.dt.end, &d))
      tick += (uint64_t)((int64_t)d >> 1);
    uint32_t code = (uint32_t)c;
    int sample = (code & 7) == INCLPROF__EVENT_KIND__EV_SAMPLE;
    sa = 0;
    if (sample && sp < b.sample_addr.end)
      (void)ip_wire_varint(&sp, b.sample_addr.end, &sa);
    if (tick < s->from) {
      stack_event(x, code);
      x->known = 1;
      last = x->tick = tick;
      continue;
    }
    if (tick > s->to) {
      x->past = 1;
      break;
    }
    if (!room(s, n + 1))
      break;
    if (!n && last < s->from)
      last = s->from;
    s->dt[n] = (tick - last) << 1 | (d & 1);
    s->code[n++] = code;
    if (sample)
      s->samples[ns++] = sa;
    last = x->tick = tick;
  }
  if (!n)
    return;
  if (!x->emitted)
    emit(s, x, b.seq);
  Inclprof__EventBatch eb = INCLPROF__EVENT_BATCH__INIT;
  eb.tid = x->tid;
  eb.seq = b.seq;
  eb.base_tick = b.base_tick > s->from ? b.base_tick : s->from;
  eb.n_dt = eb.n_code = n;
  eb.dt = s->dt;
  eb.code = s->code;
  if (b.have & IP_BATCH_SAMPLE_ADDR) {
    eb.n_sample_addr = ns;
    eb.sample_addr = s->samples;
  }
  if (b.have & (IP_BATCH_KERNEL_DT | IP_BATCH_KERNEL_LOST))
    cut_kernel(s, &b, &eb);
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_EVENTS;
  rec.events = &eb;
  put_record(s, &rec);
  s->events += n;
  s->batches++;
}

/* A ThreadState where a segment begins, for a thread whose past is not known yet. */
static void take_state(struct snap *s, const uint8_t *p, const uint8_t *end) {
  ip_wire_field w;
  struct sthread *x = NULL;
  uint64_t paused = 0, call_open = 0, expect_ret = 0;
  while (p < end && ip_wire_next(&p, end, &w)) {
    if (w.number == IP_TAG_THREAD_STATE_TID && w.wire == IP_WIRE_VARINT) {
      x = thread_of(s, (uint32_t)w.value);
      if (!x || x->known || x->emitted || x->ended)
        return;
    } else if (!x) {
      return; /* the tid comes first */
    } else if (w.number == IP_TAG_THREAD_STATE_NEXT_SEQ && w.wire == IP_WIRE_VARINT) {
      x->next_seq = w.value;
    } else if (w.number == IP_TAG_THREAD_STATE_TICK && w.wire == IP_WIRE_VARINT) {
      x->tick = w.value;
    } else if (w.number == IP_TAG_THREAD_STATE_OPEN && w.wire == IP_WIRE_LEN) {
      uint64_t code;
      for (const uint8_t *q = w.data;
           q < w.data + w.value && ip_wire_varint(&q, w.data + w.value, &code);)
        stack_event(x, (uint32_t)code);
    } else if (w.number == IP_TAG_THREAD_STATE_OPEN && w.wire == IP_WIRE_VARINT) {
      stack_event(x, (uint32_t)w.value);
    } else if (w.number == IP_TAG_THREAD_STATE_PAUSED) {
      paused = w.value;
    } else if (w.number == IP_TAG_THREAD_STATE_CALL_OPEN) {
      call_open = w.value;
    } else if (w.number == IP_TAG_THREAD_STATE_EXPECT_RET) {
      expect_ret = w.value;
    }
  }
  if (!x)
    return;
  ip_stack_resume(&x->stack, paused != 0, call_open != 0,
                  expect_ret ? (uint32_t)expect_ret : IP_STACK_NO_KEY);
  x->known = 1;
}

static void take_thread(struct snap *s, const uint8_t *frame, size_t flen, const uint8_t *p,
                        const uint8_t *end) {
  ip_wire_field w;
  while (p < end && ip_wire_next(&p, end, &w))
    if (w.number == IP_TAG_THREAD_TID && w.wire == IP_WIRE_VARINT) {
      struct sthread *x = thread_of(s, (uint32_t)w.value);
      uint8_t *c = x ? ip_realloc(x->thread_frame, flen) : NULL;
      if (c) {
        memcpy(c, frame, flen);
        x->thread_frame = c;
        x->thread_frame_len = flen;
      }
      return;
    }
}

static void take_thread_end(struct snap *s, const uint8_t *frame, size_t flen, const uint8_t *p,
                            const uint8_t *end) {
  ip_wire_field w;
  uint32_t tid = 0;
  uint64_t tick = 0;
  while (p < end && ip_wire_next(&p, end, &w))
    if (w.number == IP_TAG_THREAD_END_TID && w.wire == IP_WIRE_VARINT)
      tid = (uint32_t)w.value;
    else if (w.number == IP_TAG_THREAD_END_TICK && w.wire == IP_WIRE_VARINT)
      tick = w.value;
  struct sthread *x = thread_of(s, tid);
  if (!x || x->ended)
    return;
  if (!tick)
    tick = x->tick;
  if (tick < s->from || (!x->emitted && !x->known)) {
    x->ended = 1; /* ended before the window */
    return;
  }
  if (tick > s->to || x->past)
    return; /* lived past the window: ended at its end */
  if (!x->emitted)
    emit(s, x, x->next_seq);
  put(s, frame, flen);
  x->ended = 1;
}

static void take_gap(struct snap *s, const uint8_t *p, const uint8_t *end) {
  ip_wire_field w;
  Inclprof__Gap g = INCLPROF__GAP__INIT;
  while (p < end && ip_wire_next(&p, end, &w))
    if (w.wire == IP_WIRE_VARINT && w.number == IP_TAG_GAP_TID)
      g.tid = (uint32_t)w.value;
    else if (w.wire == IP_WIRE_VARINT && w.number == IP_TAG_GAP_START_TICK)
      g.start_tick = w.value;
    else if (w.wire == IP_WIRE_VARINT && w.number == IP_TAG_GAP_END_TICK)
      g.end_tick = w.value;
  struct sthread *x = thread_of(s, g.tid);
  if (!x || !x->emitted || x->ended || g.end_tick <= s->from || g.start_tick >= s->to)
    return;
  if (g.start_tick < s->from)
    g.start_tick = s->from;
  if (g.end_tick > s->to)
    g.end_tick = s->to;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_GAP;
  rec.gap = &g;
  put_record(s, &rec);
}

static void take_frames(struct snap *s, const uint8_t *bytes, size_t len) {
  ip_frame_view f;
  for (size_t at = IP_TRACE_PREAMBLE_LEN;
       at < len && !s->err && ip_frame_next(bytes + at, len - at, &f) == IP_FRAME_OK;
       at += f.size) {
    const uint8_t *p = f.record, *rend = f.record + f.record_len;
    ip_wire_field w;
    if (!ip_wire_next(&p, rend, &w) || w.wire != IP_WIRE_LEN)
      continue;
    const uint8_t *body = w.data, *body_end = w.data + w.value;
    switch (w.number) {
    case IP_TAG_RECORD_THREAD:
      take_thread(s, bytes + at, f.size, body, body_end);
      break;
    case IP_TAG_RECORD_THREAD_STATE:
      take_state(s, body, body_end);
      break;
    case IP_TAG_RECORD_THREAD_END:
      take_thread_end(s, bytes + at, f.size, body, body_end);
      break;
    case IP_TAG_RECORD_EVENTS:
      take_batch(s, body, (size_t)w.value);
      break;
    case IP_TAG_RECORD_GAP:
      take_gap(s, body, body_end);
      break;
    default:
      break;
    }
  }
}

/* A segment file's number and start tick (its Segment record; the first
 * segment, which has none, is number 0 and starts with the process: 0). */
static void segment_of(const uint8_t *bytes, size_t len, uint64_t *number, uint64_t *start) {
  ip_frame_view f;
  *number = *start = 0;
  for (size_t at = IP_TRACE_PREAMBLE_LEN, k = 0;
       k < 2 && at < len && ip_frame_next(bytes + at, len - at, &f) == IP_FRAME_OK;
       at += f.size, k++) {
    const uint8_t *p = f.record;
    ip_wire_field w;
    if (!ip_wire_next(&p, f.record + f.record_len, &w) || w.number != IP_TAG_RECORD_SEGMENT)
      continue;
    const uint8_t *q = w.data, *end = w.data + w.value;
    ip_wire_field g;
    while (q < end && ip_wire_next(&q, end, &g))
      if (g.number == IP_TAG_SEGMENT_NUMBER && g.wire == IP_WIRE_VARINT)
        *number = g.value;
      else if (g.number == IP_TAG_SEGMENT_START_TICK && g.wire == IP_WIRE_VARINT)
        *start = g.value;
    if (!*number)
      *start = 0;
    return;
  }
}

static const uint8_t *map(int fd, size_t *len) {
  struct stat st;
  *len = 0;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= IP_TRACE_PREAMBLE_LEN)
    return NULL;
  *len = (size_t)st.st_size;
  void *m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
  return m == MAP_FAILED ? NULL : m;
}

static void put_start(struct snap *s, const struct ip_snapshot_source *src,
                      const struct ip_snapshot_want *want, const char *function, uint64_t bound_ns,
                      int partial) {
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  put(s, pre, sizeof pre);
  put(s, src->header, src->header_len);
  Inclprof__Snapshot sn = INCLPROF__SNAPSHOT__INIT;
  sn.has_number = sn.has_bound_ns = sn.has_tid = sn.has_gid = 1;
  sn.has_call_start_tick = sn.has_call_end_tick = sn.has_window_start_tick = 1;
  sn.has_window_end_tick = sn.has_partial = 1;
  sn.number = want->number;
  sn.function = (char *)function;
  sn.bound_ns = bound_ns;
  sn.tid = want->tid;
  sn.gid = want->gid;
  sn.call_start_tick = want->enter_tick;
  sn.call_end_tick = want->exit_tick;
  sn.window_start_tick = s->from;
  sn.window_end_tick = s->to;
  sn.partial = partial != 0;
  sn.has_call_gap_ticks = want->gap_ticks > 0;
  sn.call_gap_ticks = want->gap_ticks;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_SNAPSHOT;
  rec.snapshot = &sn;
  put_record(s, &rec);
  put(s, src->tables, src->tables_len);
}

static void put_end(struct snap *s) {
  for (size_t i = 0; i < s->n_th && !s->err; i++) {
    struct sthread *x = &s->th[i];
    if (x->ended || (!x->emitted && !x->known))
      continue;
    if (!x->emitted)
      emit(s, x, x->next_seq); /* alive through the window without an event in it */
    put_thread_end(s, x->tid, s->to, 1);
  }
  Inclprof__Trailer tr = INCLPROF__TRAILER__INIT;
  tr.has_end_tick = tr.has_events = tr.has_batches = tr.has_clean = 1;
  tr.end_tick = s->to;
  tr.events = s->events;
  tr.batches = s->batches;
  tr.clean = 1;
  tr.exit_reason = "snapshot";
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_TRAILER;
  rec.trailer = &tr;
  put_record(s, &rec);
}

int ip_snapshot_write(const struct ip_snapshot_source *src, const struct ip_snapshot_want *w,
                      const char *function, uint64_t bound_ns, const char *dir) {
  char path[sizeof ip_st.dir + 256];
  snprintf(path, sizeof path, "%s/%d.ipb", dir, (int)ip_st.pid);
  struct snap s = {.from = w->from_tick, .to = w->to_tick};
  size_t held_len = 0, prev_len = 0, cur_map = 0;
  const uint8_t *held = map(src->held_fd, &held_len), *prev = map(src->prev_fd, &prev_len);
  const uint8_t *cur = map(src->cur_fd, &cur_map);
  uint64_t n_held = 0, n_prev = 0, start;
  if (held)
    segment_of(held, held_len, &n_held, &start);
  if (prev)
    segment_of(prev, prev_len, &n_prev, &start);
  if (held && (!prev || n_held + 1 != n_prev)) { /* not the segment right before the .prev */
    munmap((void *)held, held_len);
    held = NULL;
  }
  size_t cur_len = cur_map < src->cur_len ? cur_map : (size_t)src->cur_len;
  if (!cur) {
    if (prev)
      munmap((void *)prev, prev_len);
    if (held)
      munmap((void *)held, held_len);
    return EIO;
  }
  const uint8_t *oldest = held ? held : prev ? prev : cur;
  uint64_t n_oldest, kept_from;
  segment_of(oldest, held ? held_len : prev ? prev_len : cur_len, &n_oldest, &kept_from);
  s.fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (s.fd < 0) {
    s.err = errno;
  } else {
    put_start(&s, src, w, function, bound_ns, kept_from > s.from);
    if (held)
      take_frames(&s, held, held_len);
    if (prev)
      take_frames(&s, prev, prev_len);
    take_frames(&s, cur, cur_len);
    put_end(&s);
    close(s.fd);
  }
  if (held)
    munmap((void *)held, held_len);
  if (prev)
    munmap((void *)prev, prev_len);
  munmap((void *)cur, cur_map);
  for (size_t i = 0; i < s.n_th; i++) {
    ip_free(s.th[i].thread_frame);
    ip_free(s.th[i].stack.frames);
  }
  ip_free(s.th);
  ip_free(s.dt);
  ip_free(s.code);
  ip_free(s.samples);
  ip_free(s.kdt);
  if (s.err)
    unlink(path);
  return s.err;
}

void ip_snapshot_source_free(struct ip_snapshot_source *src) {
  if (src->cur_fd >= 0)
    close(src->cur_fd);
  if (src->prev_fd >= 0)
    close(src->prev_fd);
  if (src->held_fd >= 0)
    close(src->held_fd);
  ip_free(src->header);
  ip_free(src->tables);
  memset(src, 0, sizeof *src);
  src->cur_fd = src->prev_fd = src->held_fd = -1;
}
