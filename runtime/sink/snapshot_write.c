/* snapshot_write.c - writes snapshots: the windows [from, to] around slow
 * calls, read back from the ring's segment files in one pass for all of
 * them, each as a trace of its own that every reader takes as it is: the
 * Header, a Snapshot record, the tables, then per thread alive in the window
 * its Thread record and a ThreadState at `from` (its open frames then), its
 * events inside the window (batches cut to it, with their numbers), its Gap
 * records inside it, a ThreadEnd at `to` for a thread still alive then, and
 * a Trailer.  One tracker follows every thread's stack through the frames
 * by the replay's rules (include/inclprof/stack_rules.h), from the start of
 * the newest segment that begins before the earliest window (a segment
 * other than the first begins with each live thread's state). */
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
#include "sink/sink.h"
#include "stack_rules.h"
#include "trace_frame.h"
#include "wire_read.h"

/* A thread as the frames read so far leave it. */
struct tthread {
  uint32_t tid;
  uint8_t *thread_frame; /* its last Thread record, framed */
  size_t thread_frame_len;
  ip_stack stack;
  uint64_t next_seq, tick;
  uint8_t known; /* its state is known (events or a ThreadState read) */
};

/* A thread as one window has it. */
struct wthread {
  uint8_t emitted;   /* its Thread record and state are written */
  uint8_t ended;     /* its ThreadEnd is written, or it ended before the window */
  uint8_t past;      /* an event after the window was read */
  uint8_t off_cpu;   /* kevents: its last switch record before the window's start,
                      when a switch-out (KEV_SWITCH_OUT_*), else 0 */
  uint8_t in_window; /* an event of it inside the window was read */
  uint8_t in_end;    /* the interval holding the window's end is transitional (the
                      transition bit of the thread's first event after the window) */
};

/* One window being written. */
struct win {
  struct ip_snapshot_out *out;
  int fd;
  uint64_t from, to, events, batches;
  struct wthread *wt; /* by tracker index */
  size_t cap_wt;
  /* the batch being cut to the window */
  uint64_t *dt, *samples, last;
  uint32_t *code;
  size_t n, ns, cap;
};

struct walk {
  struct tthread *th;
  size_t n_th, cap_th;
  struct win *w;
  size_t n_w;
  uint64_t *ticks, *kdt; /* one batch's ticks; kernel records cut to a window */
  size_t cap_ticks, cap_k;
  uint32_t *kwakee, *kfop; /* the kept records' woken tids and futex operations */
  uint64_t *kfutex;        /* ... and futex words */
  size_t cap_kw, cap_kf, cap_kfo;
  struct win **hit; /* the windows a batch reaches */
};

static void put(struct win *w, const uint8_t *p, size_t n) {
  while (n && !w->out->err) {
    ssize_t k = write(w->fd, p, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0) {
      w->out->err = k < 0 ? errno : ENOSPC;
      return;
    }
    p += k;
    n -= (size_t)k;
  }
}

static void put_record(struct win *w, const Inclprof__Record *rec) {
  uint8_t stack[4096];
  size_t max = ip_frame_max_size(rec);
  uint8_t *buf = max <= sizeof stack ? stack : ip_alloc(max);
  if (!buf) {
    w->out->err = ENOMEM;
    return;
  }
  put(w, buf, ip_frame_encode(rec, buf));
  if (buf != stack)
    ip_free(buf);
}

static int grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return 1;
  size_t c = *cap ? *cap : 64;
  while (c < need)
    c *= 2;
  void *q = ip_realloc(*p, c * size);
  if (!q)
    return 0;
  memset((char *)q + *cap * size, 0, (c - *cap) * size);
  *p = q;
  *cap = c;
  return 1;
}

/* The tracker's index of tid, added when new; -1 without memory. */
static long thread_of(struct walk *k, uint32_t tid) {
  for (size_t i = 0; i < k->n_th; i++)
    if (k->th[i].tid == tid)
      return (long)i;
  if (!grow((void **)&k->th, &k->cap_th, k->n_th + 1, sizeof *k->th))
    return -1;
  struct tthread *x = &k->th[k->n_th];
  memset(x, 0, sizeof *x);
  x->tid = tid;
  ip_stack_init(&x->stack, NULL, sizeof(ip_open_frame), 0);
  x->stack.began_inside = (uint8_t)ip_began_inside(tid);
  return (long)k->n_th++;
}

static struct wthread *wt_of(struct win *w, size_t i) {
  static struct wthread none = {.ended = 1};
  return grow((void **)&w->wt, &w->cap_wt, i + 1, sizeof *w->wt) ? &w->wt[i] : &none;
}

static void stack_event(struct tthread *x, uint32_t code) {
  ip_stack *st = &x->stack;
  if (st->depth == st->cap) {
    size_t cap = st->cap ? st->cap * 2 : 64;
    ip_open_frame *f = ip_realloc(st->frames, cap * sizeof *f);
    if (f) {
      st->frames = f;
      st->cap = cap;
    }
  }
  (void)ip_stack_event(st, code & 7, ip_stack_code_key(code));
}

/* The thread's Thread record and, when its past is known, its state as the
 * tracker has it now (the window's start: no event of it in between); seq:
 * the number of its first batch in the window. */
static void emit(struct win *w, const struct tthread *x, struct wthread *wt, uint64_t seq) {
  wt->emitted = 1;
  if (x->thread_frame)
    put(w, x->thread_frame, x->thread_frame_len);
  if (!x->known)
    return;
  const ip_stack *st = &x->stack;
  uint32_t *codes = st->depth ? ip_alloc(st->depth * 2 * sizeof *codes) : NULL;
  if (st->depth && !codes) {
    w->out->err = ENOMEM;
    return;
  }
  Inclprof__ThreadState ts = INCLPROF__THREAD_STATE__INIT;
  ts.tid = x->tid;
  ts.has_next_seq = ts.has_tick = ts.has_paused = ts.has_call_open = ts.has_expect_ret = 1;
  ts.next_seq = seq;
  ts.tick = w->from;
  ts.n_open = st->depth ? ip_stack_open_codes(st, codes) : 0;
  ts.open = codes;
  ts.paused = st->paused != 0;
  ts.call_open = st->call_open != 0;
  ts.expect_ret = st->expect_ret == IP_STACK_NO_KEY ? 0 : st->expect_ret;
  ts.has_off_cpu = wt->off_cpu != 0;
  ts.off_cpu = wt->off_cpu;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_THREAD_STATE;
  rec.thread_state = &ts;
  put_record(w, &rec);
  ip_free(codes);
}

/* A ThreadEnd at the window's end for a thread alive past it: its last
 * interval is transitional when the one holding the window's end is, or,
 * with no event of it read after the window, when it was off the CPU at the
 * window's start and has no event in it. */
static void put_thread_end(struct win *w, uint32_t tid, const struct wthread *wt, int events_in) {
  Inclprof__ThreadEnd e = INCLPROF__THREAD_END__INIT;
  e.tid = tid;
  e.has_end_tick = e.has_alive_at_exit = 1;
  e.end_tick = w->to;
  e.alive_at_exit = 1;
  e.transitional = wt->past ? wt->in_end : wt->off_cpu && !events_in;
  e.has_transitional = e.transitional;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_THREAD_END;
  rec.thread_end = &e;
  put_record(w, &rec);
}

/* The next entry of a packed array of kernel-record arguments (0 past its end). */
static uint64_t next_arg(const uint8_t **p, const uint8_t *end) {
  uint64_t v = 0;
  if (*p < end && !ip_wire_varint(p, end, &v))
    *p = end;
  return v;
}

/* The kernel-event records of b inside w, into eb, with the woken tids of
 * their KEV_WAKE records and the words and operations of their
 * KEV_FUTEX_WAIT records. */
static void cut_kernel(struct walk *k, const struct win *w, const ip_batch_fields *b,
                       Inclprof__EventBatch *eb) {
  uint64_t ktick = b->kernel_base_tick, v, prev = 0;
  size_t n = 0, nw = 0, nf = 0;
  const uint8_t *wp = b->kernel_wakee.p, *fp = b->kernel_futex.p, *op = b->kernel_futex_op.p;
  for (const uint8_t *p = b->kernel_dt.p;
       p < b->kernel_dt.end && ip_wire_varint(&p, b->kernel_dt.end, &v);) {
    ktick += v >> 3;
    uint32_t kind = (uint32_t)(v & 7);
    uint64_t wakee = 0, futex = 0, fop = 0;
    int wake = kind == INCLPROF__KERNEL_EVENT_KIND__KEV_WAKE && wp < b->kernel_wakee.end;
    int wait = kind == INCLPROF__KERNEL_EVENT_KIND__KEV_FUTEX_WAIT && fp < b->kernel_futex.end &&
               op < b->kernel_futex_op.end;
    if (wake)
      wakee = next_arg(&wp, b->kernel_wakee.end);
    if (wait) {
      futex = next_arg(&fp, b->kernel_futex.end);
      fop = next_arg(&op, b->kernel_futex_op.end);
    }
    if (ktick < w->from || ktick > w->to || !grow((void **)&k->kdt, &k->cap_k, n + 1, 8))
      continue;
    if (wake && grow((void **)&k->kwakee, &k->cap_kw, nw + 1, sizeof *k->kwakee))
      k->kwakee[nw++] = (uint32_t)wakee;
    else if (wake)
      continue;
    if (wait && grow((void **)&k->kfutex, &k->cap_kf, nf + 1, sizeof *k->kfutex) &&
        grow((void **)&k->kfop, &k->cap_kfo, nf + 1, sizeof *k->kfop)) {
      k->kfutex[nf] = futex;
      k->kfop[nf++] = (uint32_t)fop;
    } else if (wait) {
      continue;
    }
    if (!n)
      eb->kernel_base_tick = prev = ktick;
    k->kdt[n++] = (ktick - prev) << 3 | kind;
    prev = ktick;
  }
  eb->has_kernel_base_tick = n > 0;
  eb->n_kernel_dt = n;
  eb->kernel_dt = k->kdt;
  eb->n_kernel_wakee = nw;
  eb->kernel_wakee = k->kwakee;
  eb->n_kernel_futex = eb->n_kernel_futex_op = nf;
  eb->kernel_futex = k->kfutex;
  eb->kernel_futex_op = k->kfop;
  eb->has_kernel_lost = eb->kernel_lost = b->kernel_lost != 0;
}

static void put_batch(struct walk *k, struct win *w, uint32_t tid, const ip_batch_fields *b) {
  Inclprof__EventBatch eb = INCLPROF__EVENT_BATCH__INIT;
  eb.tid = tid;
  eb.seq = b->seq;
  eb.base_tick = b->base_tick > w->from ? b->base_tick : w->from;
  eb.n_dt = eb.n_code = w->n;
  eb.dt = w->dt;
  eb.code = w->code;
  if (b->have & IP_BATCH_SAMPLE_ADDR) {
    eb.n_sample_addr = w->ns;
    eb.sample_addr = w->samples;
  }
  if (b->have & (IP_BATCH_KERNEL_DT | IP_BATCH_KERNEL_LOST))
    cut_kernel(k, w, b, &eb);
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_EVENTS;
  rec.events = &eb;
  put_record(w, &rec);
  w->events += w->n;
  w->batches++;
}

/* Room for n events in w's batch. */
static int room(struct win *w, size_t n) {
  if (n <= w->cap)
    return 1;
  size_t cap = w->cap ? w->cap * 2 : 1024;
  while (cap < n)
    cap *= 2;
  uint64_t *dt = ip_realloc(w->dt, cap * sizeof *dt);
  if (dt)
    w->dt = dt;
  uint64_t *sa = dt ? ip_realloc(w->samples, cap * sizeof *sa) : NULL;
  if (sa)
    w->samples = sa;
  uint32_t *code = sa ? ip_realloc(w->code, cap * sizeof *code) : NULL;
  if (!code)
    return 0;
  w->code = code;
  w->cap = cap;
  return 1;
}

/* One event of thread xi for window w (the tracker not yet moved by it). */
static void event_in(struct win *w, const struct tthread *x, size_t xi, uint64_t seq, uint64_t prev,
                     uint64_t tick, uint64_t d, uint32_t code, int sample, uint64_t sa) {
  struct wthread *wt = wt_of(w, xi);
  if (wt->ended || wt->past || tick < w->from)
    return;
  if (tick > w->to) { /* no event inside: alive through the window, as it was at its start */
    if (!wt->emitted && x->known)
      emit(w, x, wt, seq);
    wt->past = 1;
    wt->in_end = (uint8_t)(d & 1);
    return;
  }
  wt->in_window = 1;
  if (!wt->emitted)
    emit(w, x, wt, seq);
  if (!room(w, w->n + 1))
    return;
  if (!w->n)
    w->last = prev > w->from ? prev : w->from;
  w->dt[w->n] = (tick - w->last) << 1 | (d & 1);
  w->code[w->n++] = code;
  if (sample)
    w->samples[w->ns++] = sa;
  w->last = tick;
}

/* Takes b's kernel records before each window's start into the state at
 * that start of the windows whose thread xi is not yet written: whether its
 * last switch record there is a switch-out (kevents). */
static void kernel_before(struct walk *k, size_t xi, const ip_batch_fields *b) {
  for (size_t i = 0; i < k->n_w; i++) {
    struct wthread *wt = wt_of(&k->w[i], xi);
    if (wt->emitted || wt->ended || wt->past)
      continue;
    uint64_t ktick = b->kernel_base_tick, v;
    for (const uint8_t *p = b->kernel_dt.p;
         p < b->kernel_dt.end && ip_wire_varint(&p, b->kernel_dt.end, &v);) {
      ktick += v >> 3;
      if (ktick >= k->w[i].from)
        break;
      uint32_t kind = (uint32_t)(v & 7);
      if (kind == INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED ||
          kind == INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED)
        wt->off_cpu = (uint8_t)kind;
      else if (kind == INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN ||
               kind == INCLPROF__KERNEL_EVENT_KIND__KEV_LOST)
        wt->off_cpu = 0;
    }
  }
}

static void take_batch(struct walk *k, const uint8_t *body, size_t len) {
  ip_batch_fields b;
  if (!ip_batch_fields_read(body, len, &b))
    return;
  long xi = thread_of(k, (uint32_t)b.tid);
  if (xi < 0)
    return;
  if (b.have & IP_BATCH_KERNEL_DT)
    kernel_before(k, (size_t)xi, &b);
  /* the ticks first: which windows the batch reaches */
  size_t n = 0;
  uint64_t tick = b.base_tick, d, c;
  for (const uint8_t *p = b.dt.p; p < b.dt.end && ip_wire_varint(&p, b.dt.end, &d); n++) {
    if (!grow((void **)&k->ticks, &k->cap_ticks, n + 1, 8))
      return;
    tick += (uint64_t)((int64_t)d >> 1);
    k->ticks[n] = tick;
  }
  size_t hits = 0; /* begun by now, and not over for this thread */
  for (size_t i = 0; n && i < k->n_w; i++) {
    const struct wthread *wt = wt_of(&k->w[i], (size_t)xi);
    if (k->w[i].from <= k->ticks[n - 1] && !wt->past && !wt->ended) {
      k->w[i].n = k->w[i].ns = 0;
      k->hit[hits++] = &k->w[i];
    }
  }
  struct tthread *x = &k->th[xi];
  const uint8_t *dp = b.dt.p, *sp = b.sample_addr.p;
  uint64_t prev = b.base_tick, sa;
  d = 0;
  for (size_t j = 0; j < n && b.code.p < b.code.end && ip_wire_varint(&b.code.p, b.code.end, &c);
       j++) {
    (void)ip_wire_varint(&dp, b.dt.end, &d);
    uint32_t code = (uint32_t)c;
    int sample = (code & 7) == INCLPROF__EVENT_KIND__EV_SAMPLE;
    sa = 0;
    if (sample && sp < b.sample_addr.end)
      (void)ip_wire_varint(&sp, b.sample_addr.end, &sa);
    for (size_t h = 0; h < hits; h++)
      event_in(k->hit[h], x, (size_t)xi, b.seq, prev, k->ticks[j], d, code, sample, sa);
    stack_event(x, code);
    x->known = 1;
    prev = x->tick = k->ticks[j];
  }
  x->next_seq = b.seq + 1;
  for (size_t h = 0; h < hits; h++)
    if (k->hit[h]->n)
      put_batch(k, k->hit[h], x->tid, &b);
}

/* A ThreadState where a segment begins, for a thread whose past is not known yet. */
static void take_state(struct walk *k, const uint8_t *p, const uint8_t *end) {
  ip_wire_field f;
  struct tthread *x = NULL;
  uint64_t paused = 0, call_open = 0, expect_ret = 0;
  while (p < end && ip_wire_next(&p, end, &f)) {
    if (f.number == IP_TAG_THREAD_STATE_TID && f.wire == IP_WIRE_VARINT) {
      long xi = thread_of(k, (uint32_t)f.value);
      if (xi < 0 || k->th[xi].known)
        return;
      x = &k->th[xi];
    } else if (!x) {
      return; /* the tid comes first */
    } else if (f.number == IP_TAG_THREAD_STATE_NEXT_SEQ && f.wire == IP_WIRE_VARINT) {
      x->next_seq = f.value;
    } else if (f.number == IP_TAG_THREAD_STATE_TICK && f.wire == IP_WIRE_VARINT) {
      x->tick = f.value;
    } else if (f.number == IP_TAG_THREAD_STATE_OPEN && f.wire == IP_WIRE_LEN) {
      uint64_t code;
      for (const uint8_t *q = f.data;
           q < f.data + f.value && ip_wire_varint(&q, f.data + f.value, &code);)
        stack_event(x, (uint32_t)code);
    } else if (f.number == IP_TAG_THREAD_STATE_OPEN && f.wire == IP_WIRE_VARINT) {
      stack_event(x, (uint32_t)f.value);
    } else if (f.number == IP_TAG_THREAD_STATE_PAUSED) {
      paused = f.value;
    } else if (f.number == IP_TAG_THREAD_STATE_CALL_OPEN) {
      call_open = f.value;
    } else if (f.number == IP_TAG_THREAD_STATE_EXPECT_RET) {
      expect_ret = f.value;
    }
  }
  if (!x)
    return;
  ip_stack_resume(&x->stack, paused != 0, call_open != 0,
                  expect_ret ? (uint32_t)expect_ret : IP_STACK_NO_KEY);
  x->known = 1;
}

static void take_thread(struct walk *k, const uint8_t *frame, size_t flen, const uint8_t *p,
                        const uint8_t *end) {
  ip_wire_field f;
  while (p < end && ip_wire_next(&p, end, &f))
    if (f.number == IP_TAG_THREAD_TID && f.wire == IP_WIRE_VARINT) {
      long xi = thread_of(k, (uint32_t)f.value);
      uint8_t *c = xi >= 0 ? ip_realloc(k->th[xi].thread_frame, flen) : NULL;
      if (c) {
        memcpy(c, frame, flen);
        k->th[xi].thread_frame = c;
        k->th[xi].thread_frame_len = flen;
      }
      return;
    }
}

static void take_thread_end(struct walk *k, const uint8_t *frame, size_t flen, const uint8_t *p,
                            const uint8_t *end) {
  ip_wire_field f;
  uint32_t tid = 0;
  uint64_t tick = 0;
  while (p < end && ip_wire_next(&p, end, &f))
    if (f.number == IP_TAG_THREAD_END_TID && f.wire == IP_WIRE_VARINT)
      tid = (uint32_t)f.value;
    else if (f.number == IP_TAG_THREAD_END_TICK && f.wire == IP_WIRE_VARINT)
      tick = f.value;
  long xi = thread_of(k, tid);
  if (xi < 0)
    return;
  const struct tthread *x = &k->th[xi];
  if (!tick)
    tick = x->tick;
  for (size_t i = 0; i < k->n_w; i++) {
    struct win *w = &k->w[i];
    struct wthread *wt = wt_of(w, (size_t)xi);
    if (wt->ended || wt->past || tick > w->to)
      continue; /* alive past the window: ended at its end */
    if (tick < w->from || (!wt->emitted && !x->known)) {
      wt->ended = 1; /* ended before the window */
      continue;
    }
    if (!wt->emitted)
      emit(w, x, wt, x->next_seq);
    put(w, frame, flen);
    wt->ended = 1;
  }
}

static void take_gap(struct walk *k, const uint8_t *p, const uint8_t *end) {
  ip_wire_field f;
  uint64_t tid = 0, start = 0, stop = 0;
  while (p < end && ip_wire_next(&p, end, &f))
    if (f.wire == IP_WIRE_VARINT && f.number == IP_TAG_GAP_TID)
      tid = f.value;
    else if (f.wire == IP_WIRE_VARINT && f.number == IP_TAG_GAP_START_TICK)
      start = f.value;
    else if (f.wire == IP_WIRE_VARINT && f.number == IP_TAG_GAP_END_TICK)
      stop = f.value;
  long xi = thread_of(k, (uint32_t)tid);
  for (size_t i = 0; xi >= 0 && i < k->n_w; i++) {
    struct win *w = &k->w[i];
    const struct wthread *wt = wt_of(w, (size_t)xi);
    if (!wt->emitted || wt->ended || stop <= w->from || start >= w->to)
      continue;
    Inclprof__Gap g = INCLPROF__GAP__INIT;
    g.tid = (uint32_t)tid;
    g.start_tick = start > w->from ? start : w->from;
    g.end_tick = stop < w->to ? stop : w->to;
    Inclprof__Record rec = INCLPROF__RECORD__INIT;
    rec.body_case = INCLPROF__RECORD__BODY_GAP;
    rec.gap = &g;
    put_record(w, &rec);
  }
}

static void take_frames(struct walk *k, const uint8_t *bytes, size_t len) {
  ip_frame_view f;
  for (size_t at = IP_TRACE_PREAMBLE_LEN;
       at < len && ip_frame_next(bytes + at, len - at, &f) == IP_FRAME_OK; at += f.size) {
    const uint8_t *p = f.record, *rend = f.record + f.record_len;
    ip_wire_field w;
    if (!ip_wire_next(&p, rend, &w) || w.wire != IP_WIRE_LEN)
      continue;
    const uint8_t *body = w.data, *body_end = w.data + w.value;
    switch (w.number) {
    case IP_TAG_RECORD_THREAD:
      take_thread(k, bytes + at, f.size, body, body_end);
      break;
    case IP_TAG_RECORD_THREAD_STATE:
      take_state(k, body, body_end);
      break;
    case IP_TAG_RECORD_THREAD_END:
      take_thread_end(k, bytes + at, f.size, body, body_end);
      break;
    case IP_TAG_RECORD_EVENTS:
      take_batch(k, body, (size_t)w.value);
      break;
    case IP_TAG_RECORD_GAP:
      take_gap(k, body, body_end);
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
  for (size_t at = IP_TRACE_PREAMBLE_LEN, i = 0;
       i < 2 && at < len && ip_frame_next(bytes + at, len - at, &f) == IP_FRAME_OK;
       at += f.size, i++) {
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
  if (fd < 0 || ip_fstat(fd, &st) != 0 || st.st_size <= IP_TRACE_PREAMBLE_LEN)
    return NULL;
  *len = (size_t)st.st_size;
  void *m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
  return m == MAP_FAILED ? NULL : m;
}

static void put_start(struct win *w, const struct ip_snapshot_source *src, int partial) {
  const struct ip_snapshot_want *want = w->out->want;
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  put(w, pre, sizeof pre);
  put(w, src->header, src->header_len);
  Inclprof__Snapshot sn = INCLPROF__SNAPSHOT__INIT;
  sn.has_number = sn.has_bound_ns = sn.has_tid = sn.has_gid = 1;
  sn.has_call_start_tick = sn.has_call_end_tick = sn.has_window_start_tick = 1;
  sn.has_window_end_tick = sn.has_partial = 1;
  sn.number = want->number;
  sn.function = (char *)w->out->function;
  sn.bound_ns = w->out->bound_ns;
  sn.tid = want->tid;
  sn.gid = want->gid;
  sn.call_start_tick = want->enter_tick;
  sn.call_end_tick = want->exit_tick;
  sn.window_start_tick = w->from;
  sn.window_end_tick = w->to;
  sn.partial = partial != 0;
  sn.has_call_gap_ticks = want->gap_ticks > 0;
  sn.call_gap_ticks = want->gap_ticks;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_SNAPSHOT;
  rec.snapshot = &sn;
  put_record(w, &rec);
  put(w, src->tables, src->tables_len);
}

static void put_end(struct walk *k, struct win *w) {
  for (size_t i = 0; i < k->n_th; i++) {
    const struct tthread *x = &k->th[i];
    struct wthread *wt = wt_of(w, i);
    if (wt->ended || (!wt->emitted && (wt->past || !x->known)))
      continue;
    if (!wt->emitted)
      emit(w, x, wt, x->next_seq); /* alive through the window, no event after it */
    put_thread_end(w, x->tid, wt, wt->in_window);
  }
  Inclprof__Trailer tr = INCLPROF__TRAILER__INIT;
  tr.has_end_tick = tr.has_events = tr.has_batches = tr.has_clean = 1;
  tr.end_tick = w->to;
  tr.events = w->events;
  tr.batches = w->batches;
  tr.clean = 1;
  tr.exit_reason = "snapshot";
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_TRAILER;
  rec.trailer = &tr;
  put_record(w, &rec);
}

void ip_snapshot_write(const struct ip_snapshot_source *src, struct ip_snapshot_out *out,
                       size_t n) {
  if (!n)
    return;
  const int fds[3] = {src->held_fd, src->prev_fd, src->cur_fd};
  const uint8_t *bytes[3];
  size_t len[3], mapped[3];
  uint64_t number[3] = {0}, start[3] = {0};
  for (int f = 0; f < 3; f++) {
    bytes[f] = map(fds[f], &mapped[f]);
    len[f] = f == 2 && mapped[f] > src->cur_len ? (size_t)src->cur_len : mapped[f];
    if (bytes[f])
      segment_of(bytes[f], len[f], &number[f], &start[f]);
  }
  if (bytes[0] && (!bytes[1] || number[0] + 1 != number[1])) { /* not right before the .prev */
    munmap((void *)bytes[0], mapped[0]);
    bytes[0] = NULL;
  }
  struct walk k = {0};
  k.w = ip_alloc(n * sizeof *k.w);
  k.hit = ip_alloc(n * sizeof *k.hit);
  uint64_t earliest = UINT64_MAX;
  for (size_t i = 0; i < n; i++) {
    out[i].err = k.w && k.hit && bytes[2] ? 0 : ENOMEM;
    if (out[i].want->from_tick < earliest)
      earliest = out[i].want->from_tick;
  }
  /* from the newest segment that begins before every window */
  int first = 2;
  while (first > 0 && bytes[first - 1] && start[first] > earliest)
    first--;
  for (size_t i = 0; k.w && k.hit && bytes[2] && i < n; i++) {
    struct win *w = &k.w[k.n_w];
    char path[sizeof out[i].dir + 32];
    snprintf(path, sizeof path, "%s/%d.ipb", out[i].dir, (int)ip_st.pid);
    w->out = &out[i];
    w->from = out[i].want->from_tick;
    w->to = out[i].want->to_tick;
    w->fd = ip_ring_fd_open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (w->fd < 0) {
      out[i].err = errno;
      continue;
    }
    put_start(w, src, start[first] > w->from);
    k.n_w++;
  }
  for (int f = first; f < 3 && k.n_w; f++)
    if (bytes[f])
      take_frames(&k, bytes[f], len[f]);
  for (size_t i = 0; i < k.n_w; i++) {
    put_end(&k, &k.w[i]);
    ip_ring_fd_close(k.w[i].fd);
    if (k.w[i].out->err) {
      char path[sizeof k.w[i].out->dir + 32];
      snprintf(path, sizeof path, "%s/%d.ipb", k.w[i].out->dir, (int)ip_st.pid);
      unlink(path);
    }
    ip_free(k.w[i].wt);
    ip_free(k.w[i].dt);
    ip_free(k.w[i].code);
    ip_free(k.w[i].samples);
  }
  for (size_t i = 0; i < k.n_th; i++) {
    ip_free(k.th[i].thread_frame);
    ip_free(k.th[i].stack.frames);
  }
  ip_free(k.th);
  ip_free(k.w);
  ip_free(k.hit);
  ip_free(k.ticks);
  ip_free(k.kdt);
  ip_free(k.kwakee);
  ip_free(k.kfutex);
  ip_free(k.kfop);
  for (int f = 0; f < 3; f++)
    if (bytes[f])
      munmap((void *)bytes[f], mapped[f]);
}

void ip_snapshot_source_free(struct ip_snapshot_source *src) {
  ip_ring_fd_close(src->cur_fd);
  ip_ring_fd_close(src->prev_fd);
  ip_ring_fd_close(src->held_fd);
  ip_free(src->header);
  ip_free(src->tables);
  memset(src, 0, sizeof *src);
  src->cur_fd = src->prev_fd = src->held_fd = -1;
}
