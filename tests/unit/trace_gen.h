/* trace_gen.h - builds synthetic inclprof trace files for the converter
 * tests: records are framed with the runtime's own encoder (ip_frame_encode),
 * events are given with absolute ticks and transition flags and encoded as
 * the runtime does (delta << 1 | T, code = arg << 3 | kind). */
#ifndef INCLPROF_TEST_TRACE_GEN_H
#define INCLPROF_TEST_TRACE_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_read.h"
#include "inclprof.pb-c.h"
#include "trace_frame.h"

#define TG_MAX_EVENTS 4096

typedef struct tg_trace {
  uint8_t *buf;
  size_t len, cap;
} tg_trace;

typedef struct tg_batch {
  uint32_t tid;
  uint64_t seq, last, base;
  uint64_t dt[TG_MAX_EVENTS];
  uint32_t code[TG_MAX_EVENTS];
  size_t n;
  uint64_t kdt[TG_MAX_EVENTS]; /* kernel-event records (tg_kev) */
  uint64_t kbase, klast;
  size_t kn;
  uint32_t wakee[TG_MAX_EVENTS]; /* the woken tid of each KEV_WAKE record (tg_wake) */
  size_t wn;
  int klost; /* the batch says its kernel records were lost */
} tg_batch;

static inline void tg_append(tg_trace *t, const void *p, size_t n) {
  if (t->len + n > t->cap) {
    t->cap = (t->len + n) * 2;
    t->buf = realloc(t->buf, t->cap);
    if (!t->buf)
      abort();
  }
  memcpy(t->buf + t->len, p, n);
  t->len += n;
}

static inline void tg_record(tg_trace *t, const Inclprof__Record *rec) {
  uint8_t *frame = malloc(ip_frame_max_size(rec));
  if (!frame)
    abort();
  size_t n = ip_frame_encode(rec, frame);
  tg_append(t, frame, n);
  free(frame);
}

/* Starts a trace: preamble and header (ticks_per_second 1e9 makes ticks ns);
 * hidden, kevent or fault < 0 leaves probe_hidden_ticks, kevent_cost_ticks or
 * fault_cost_ticks out, as older runtimes did; kernel_events: its batches
 * carry kernel-event records. */
static inline void tg_begin_header_fault(tg_trace *t, uint32_t pid, double tps, double probe_cost,
                                         double hidden, double kevent, double fault,
                                         Inclprof__TransitionMode mode, int kernel_events,
                                         int wake_edges) {
  memset(t, 0, sizeof *t);
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  tg_append(t, pre, sizeof pre);
  Inclprof__Header h = INCLPROF__HEADER__INIT;
  h.format_major = IP_FORMAT_MAJOR;
  h.pid = pid;
  h.executable = "/bin/prog";
  h.has_start_unix_ns = h.has_start_tick = h.has_clock = 1;
  h.start_unix_ns = 1000000000ull;
  h.clock = INCLPROF__CLOCK_SOURCE__CLOCK_TSC;
  h.has_ticks_per_second = h.has_transitions = h.has_probe_cost_ticks = 1;
  h.ticks_per_second = tps;
  h.transitions = mode;
  h.probe_cost_ticks = probe_cost;
  h.has_probe_hidden_ticks = hidden >= 0;
  h.probe_hidden_ticks = hidden >= 0 ? hidden : 0;
  h.has_kevent_cost_ticks = kevent >= 0;
  h.kevent_cost_ticks = kevent >= 0 ? kevent : 0;
  h.has_fault_cost_ticks = fault >= 0;
  h.fault_cost_ticks = fault >= 0 ? fault : 0;
  h.has_kernel_events = 1;
  h.kernel_events = kernel_events;
  h.has_wake_edges = wake_edges;
  h.wake_edges = wake_edges;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_HEADER;
  r.header = &h;
  tg_record(t, &r);
}

static inline void tg_begin_header_wakes(tg_trace *t, uint32_t pid, double tps, double probe_cost,
                                         double hidden, double kevent,
                                         Inclprof__TransitionMode mode, int kernel_events,
                                         int wake_edges) {
  tg_begin_header_fault(t, pid, tps, probe_cost, hidden, kevent, -1, mode, kernel_events,
                        wake_edges);
}

static inline void tg_begin_header(tg_trace *t, uint32_t pid, double tps, double probe_cost,
                                   double hidden, double kevent, Inclprof__TransitionMode mode,
                                   int kernel_events) {
  tg_begin_header_wakes(t, pid, tps, probe_cost, hidden, kevent, mode, kernel_events, 0);
}

static inline void tg_begin_costs(tg_trace *t, uint32_t pid, double tps, double probe_cost,
                                  double hidden, double kevent, Inclprof__TransitionMode mode) {
  tg_begin_header(t, pid, tps, probe_cost, hidden, kevent, mode, 0);
}

static inline void tg_begin_kev(tg_trace *t, uint32_t pid, double tps, double probe_cost,
                                Inclprof__TransitionMode mode, int kernel_events) {
  tg_begin_header(t, pid, tps, probe_cost, -1, -1, mode, kernel_events);
}

static inline void tg_begin(tg_trace *t, uint32_t pid, double tps, double probe_cost,
                            Inclprof__TransitionMode mode) {
  tg_begin_header(t, pid, tps, probe_cost, -1, -1, mode, 0);
}

static inline void tg_module(tg_trace *t, uint32_t id, const char *path) {
  Inclprof__Module m = INCLPROF__MODULE__INIT;
  m.id = id;
  m.path = (char *)path;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_MODULE;
  r.module = &m;
  tg_record(t, &r);
}

static inline void tg_function(tg_trace *t, uint32_t gid, uint32_t module, const char *name,
                               const char *file, uint32_t line) {
  Inclprof__Function f = INCLPROF__FUNCTION__INIT;
  f.gid = gid;
  f.has_module = f.has_id = f.has_line = 1;
  f.module = module;
  f.id = 0x1000 + gid;
  f.name = (char *)name;
  f.pretty = (char *)name;
  f.file = (char *)file;
  f.line = line;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_FUNCTION;
  r.function = &f;
  tg_record(t, &r);
}

static inline void tg_thread(tg_trace *t, uint32_t tid, const char *name) {
  Inclprof__Thread th = INCLPROF__THREAD__INIT;
  th.tid = tid;
  th.name = (char *)name;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_THREAD;
  r.thread = &th;
  tg_record(t, &r);
}

static inline void tg_gap(tg_trace *t, uint32_t tid, uint64_t start, uint64_t end) {
  Inclprof__Gap g = INCLPROF__GAP__INIT;
  g.tid = tid;
  g.start_tick = start;
  g.end_tick = end;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_GAP;
  r.gap = &g;
  tg_record(t, &r);
}

static inline void tg_window(tg_trace *t, uint64_t tick, int recording, const char *reason) {
  Inclprof__Window w = INCLPROF__WINDOW__INIT;
  w.has_tick = w.has_recording = 1;
  w.tick = tick;
  w.recording = recording != 0;
  w.reason = (char *)reason;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_WINDOW;
  r.window = &w;
  tg_record(t, &r);
}

static inline void tg_trailer(tg_trace *t, int clean, const char *reason) {
  Inclprof__Trailer tr = INCLPROF__TRAILER__INIT;
  tr.has_clean = 1;
  tr.clean = clean;
  tr.exit_reason = (char *)reason;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_TRAILER;
  r.trailer = &tr;
  tg_record(t, &r);
}

static inline void tg_batch_init(tg_batch *b, uint32_t tid) {
  memset(b, 0, sizeof *b);
  b->tid = tid;
}

/* One event at absolute tick; transitional = the interval ending here. */
static inline void tg_ev(tg_batch *b, uint64_t tick, int transitional, Inclprof__EventKind kind,
                         uint32_t arg) {
  if (b->n == TG_MAX_EVENTS)
    abort();
  if (b->n == 0) {
    b->base = tick;
    b->dt[0] = (uint64_t)transitional;
  } else {
    b->dt[b->n] = (tick - b->last) << 1 | (uint64_t)transitional;
  }
  b->code[b->n++] = arg << 3 | (uint32_t)kind;
  b->last = tick;
}

/* One kernel-event record at absolute tick (ticks in order). */
static inline void tg_kev(tg_batch *b, uint64_t tick, Inclprof__KernelEventKind kind) {
  if (b->kn == TG_MAX_EVENTS)
    abort();
  if (b->kn == 0)
    b->kbase = b->klast = tick;
  b->kdt[b->kn++] = (tick - b->klast) << 3 | (uint64_t)kind;
  b->klast = tick;
}

/* A KEV_WAKE record: the thread woke (or started) thread tid at tick. */
static inline void tg_wake(tg_batch *b, uint64_t tick, uint32_t tid) {
  tg_kev(b, tick, INCLPROF__KERNEL_EVENT_KIND__KEV_WAKE);
  b->wakee[b->wn++] = tid;
}

/* Writes the batch's events as one EventBatch record; the next batch gets seq+1. */
static inline void tg_flush(tg_trace *t, tg_batch *b) {
  Inclprof__EventBatch e = INCLPROF__EVENT_BATCH__INIT;
  e.tid = b->tid;
  e.seq = b->seq++;
  e.base_tick = b->base;
  e.n_dt = e.n_code = b->n;
  e.dt = b->dt;
  e.code = b->code;
  e.n_kernel_dt = b->kn;
  e.kernel_dt = b->kdt;
  e.has_kernel_base_tick = b->kn > 0;
  e.kernel_base_tick = b->kbase;
  e.has_kernel_lost = e.kernel_lost = b->klost;
  e.n_kernel_wakee = b->wn;
  e.kernel_wakee = b->wakee;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_EVENTS;
  r.events = &e;
  tg_record(t, &r);
  b->n = b->kn = b->wn = 0;
  b->klost = 0;
}

static inline int tg_write(const tg_trace *t, const char *path) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  size_t n = fwrite(t->buf, 1, t->len, f);
  return fclose(f) || n != t->len ? -1 : 0;
}

static inline void tg_free(tg_trace *t) {
  free(t->buf);
  memset(t, 0, sizeof *t);
}

/* Rewrites the CRC of every complete frame of a trace image, so that a
 * mutation inside a record reaches the decoder and the replay instead of
 * stopping at the checksum (used by the fuzz tests).  Stops at the first
 * frame whose length runs past the end. */
static inline void tg_fix_crcs(uint8_t *buf, size_t len) {
  ip_frame_view f;
  for (size_t at = IP_TRACE_PREAMBLE_LEN;
       at < len && ip_frame_next(buf + at, len - at, &f) == IP_FRAME_OK; at += f.size)
    ip_frame_seal(buf + at + (f.size - f.record_len - IP_FRAME_CRC_LEN), f.record_len);
}

#define TG_ENTER  INCLPROF__EVENT_KIND__EV_ENTER
#define TG_EXIT   INCLPROF__EVENT_KIND__EV_EXIT
#define TG_CALL   INCLPROF__EVENT_KIND__EV_CALL
#define TG_RET    INCLPROF__EVENT_KIND__EV_RET
#define TG_SAMPLE INCLPROF__EVENT_KIND__EV_SAMPLE
#define TG_PAUSE  INCLPROF__EVENT_KIND__EV_PAUSE
#define TG_RESUME INCLPROF__EVENT_KIND__EV_RESUME

#endif
