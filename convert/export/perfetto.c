/* export/perfetto.c - `inclprof export --format perfetto`: Perfetto's native
 * protobuf trace (proto/perfetto_trace.proto, a subset of Perfetto's schema
 * with its field numbers).  A Trace is a sequence of `packet` fields, so the
 * packets are written one by one: first a TrackDescriptor per process and
 * per thread, then per thread one packet sequence of its calls as
 * TYPE_SLICE_BEGIN / TYPE_SLICE_END TrackEvents in time order.  Each sequence
 * starts by clearing its incremental state and setting its defaults (the
 * thread's track, an incremental clock, so timestamps are ns deltas); a
 * function's name is interned on its sequence the first time it is used and
 * named by its iid after that.  A begin whose call was not all Application
 * time carries the rest (Elapsed - Application Inclusive: the kernel's work
 * and waiting) as the debug annotation transitional_ns; without it the call
 * was all Application time.  --min-duration and --time-range leave calls out
 * (with their callees, which are inside them), and the slices keep the
 * longest calls that fit in IP_PERFETTO_DEFAULT_MAX_SIZE (or --max-size /
 * --max-events; export/timeline_budget.h).  The descriptors and each
 * sequence's first packet are packed by protobuf-c; the slice packets, one
 * per begin and end and most of the file, are encoded directly
 * (perfetto_wire.h), in the field order protobuf-c writes.  Coroutine
 * operations are slices of async tracks of their process, on a sequence of
 * their own after the threads'. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/call_log.h"
#include "export/timeline_budget.h"
#include "export/exporter.h"
#include "export/perfetto_critical.h"
#include "export/perfetto_wire.h"
#include "export/tree.h"
#include "perfetto_trace.pb-c.h"
#include "util/util.h"

enum {
  CLOCK_BOOTTIME = 6,     /* Perfetto's BuiltinClock, its default trace clock */
  CLOCK_INCREMENTAL = 64, /* sequence-scoped: each timestamp adds to the last */
  SEQ_DESCRIPTORS = 1,    /* the track descriptors' sequence; threads' are 2... */
  IID_TRANSITIONAL = 1,   /* the debug annotation name's iid */
};
#define UUID_PROCESS(i) IP_PERFETTO_UUID_PROCESS(i)
#define UUID_THREAD(i)  IP_PERFETTO_UUID_THREAD(i)
#define UUID_LANE(i)    ((4ull << 40) | (uint64_t)(i)) /* a coroutine's operations */

/* A trace the Perfetto UI loads in a browser tab's memory. */
#define IP_PERFETTO_DEFAULT_MAX_SIZE (256ull << 20)

typedef struct perfetto {
  const ip_session *s;
  ip_pb_out out;
  uint8_t *buf;
  size_t cap;
  uint32_t seq;          /* the current thread's sequence */
  uint8_t seq_field[16]; /* its trusted_packet_sequence_id field, seq_field_len bytes */
  size_t seq_field_len;
  uint64_t last_ns;  /* the last timestamp on it */
  uint8_t *interned; /* per function: its name was interned on this sequence */
  char *op_name;     /* the coroutine's name of the operation being written */
} perfetto;

static void put_packet(perfetto *x, const Perfetto__Protos__TracePacket *p) {
  size_t n = perfetto__protos__trace_packet__get_packed_size(p);
  if (n > x->cap)
    x->buf = ip_must_realloc(x->buf, x->cap = 2 * n, 1);
  perfetto__protos__trace_packet__pack(p, x->buf);
  ip_pb_out_packet(&x->out, x->buf, n);
}

static const char *func_name(const ip_session *s, uint32_t f) {
  if (f >= s->n_funcs)
    return "?";
  return s->funcs[f].pretty && *s->funcs[f].pretty ? s->funcs[f].pretty : s->funcs[f].name;
}

/* A TrackDescriptor in a packet of the descriptors' sequence. */
static void put_track(perfetto *x, Perfetto__Protos__TrackDescriptor *td) {
  Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  p.has_trusted_packet_sequence_id = 1;
  p.trusted_packet_sequence_id = SEQ_DESCRIPTORS;
  p.track_descriptor = td;
  put_packet(x, &p);
}

static void put_descriptors(perfetto *x, const ip_export_opts *o) {
  for (size_t i = 0; i < x->s->n_processes; i++) {
    const ip_process *pr = &x->s->processes[i];
    char label[512];
    Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
    pd.has_pid = 1;
    pd.pid = (int32_t)pr->pid;
    pd.process_name = (char *)ip_process_viewer_name(x->s, (uint32_t)i, label, sizeof label);
    Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
    td.has_uuid = 1;
    td.uuid = UUID_PROCESS(i);
    td.process = &pd;
    put_track(x, &td);
  }
  for (size_t i = 0; i < x->s->n_threads; i++) {
    const ip_thread *t = &x->s->threads[i];
    if (!ip_selected_thread(x->s, &o->sel, t))
      continue;
    char label[96];
    ip_thread_label(t, label, sizeof label);
    Perfetto__Protos__ThreadDescriptor th = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
    th.has_pid = th.has_tid = 1;
    th.pid = t->process < x->s->n_processes ? (int32_t)x->s->processes[t->process].pid : 0;
    th.tid = t->tid;
    th.thread_name = t->name && *t->name ? t->name : label;
    Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
    td.has_uuid = 1;
    td.uuid = UUID_THREAD(i);
    td.thread = &th;
    put_track(x, &td);
  }
}

/* The first packet of a thread's sequence: state cleared, the transitional_ns
 * name interned, the defaults (its track, the incremental clock) and the
 * clock snapshot that starts the incremental clock at 0 on BOOTTIME's 0. */
static void start_sequence(perfetto *x, size_t t) {
  Perfetto__Protos__ClockSnapshot__Clock boot = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
  boot.has_clock_id = boot.has_timestamp = 1;
  boot.clock_id = CLOCK_BOOTTIME;
  Perfetto__Protos__ClockSnapshot__Clock inc = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
  inc.has_clock_id = inc.has_timestamp = inc.has_is_incremental = 1;
  inc.clock_id = CLOCK_INCREMENTAL;
  inc.is_incremental = 1;
  Perfetto__Protos__ClockSnapshot__Clock *clocks[] = {&boot, &inc};
  Perfetto__Protos__ClockSnapshot cs = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
  cs.n_clocks = 2;
  cs.clocks = clocks;
  Perfetto__Protos__TrackEventDefaults ted = PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;
  ted.has_track_uuid = 1;
  ted.track_uuid = UUID_THREAD(t);
  Perfetto__Protos__TracePacketDefaults d = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
  d.has_timestamp_clock_id = 1;
  d.timestamp_clock_id = CLOCK_INCREMENTAL;
  d.track_event_defaults = &ted;
  Perfetto__Protos__DebugAnnotationName an = PERFETTO__PROTOS__DEBUG_ANNOTATION_NAME__INIT;
  an.has_iid = 1;
  an.iid = IID_TRANSITIONAL;
  an.name = "transitional_ns";
  Perfetto__Protos__DebugAnnotationName *names[] = {&an};
  Perfetto__Protos__InternedData in = PERFETTO__PROTOS__INTERNED_DATA__INIT;
  in.n_debug_annotation_names = 1;
  in.debug_annotation_names = names;
  Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  p.has_timestamp = p.has_timestamp_clock_id = p.has_trusted_packet_sequence_id = 1;
  p.timestamp_clock_id = CLOCK_BOOTTIME;
  p.trusted_packet_sequence_id = x->seq;
  p.has_sequence_flags = p.has_first_packet_on_sequence = 1;
  p.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
  p.first_packet_on_sequence = 1;
  p.clock_snapshot = &cs;
  p.trace_packet_defaults = &d;
  p.interned_data = &in;
  put_packet(x, &p);
  x->last_ns = 0;
  x->seq_field_len = (size_t)(ip_pb_varint_field(x->seq_field, 10, x->seq) - x->seq_field);
}

/* Tags of the slice packets' fields (field number << 3 | wire type). */
enum {
  TAG_PACKET = 1 << 3 | 2,       /* Trace.packet */
  TAG_TIMESTAMP = 8 << 3,        /* TracePacket.timestamp */
  TAG_TRACK_EVENT = 11 << 3 | 2, /* TracePacket.track_event */
  TAG_INTERNED = 12 << 3 | 2,    /* TracePacket.interned_data */
  TAG_FLAGS = 13 << 3,           /* TracePacket.sequence_flags */
  TAG_ANNOTATION = 4 << 3 | 2,   /* TrackEvent.debug_annotations */
  TAG_TYPE = 9 << 3,             /* TrackEvent.type */
  TAG_NAME_IID = 10 << 3,        /* TrackEvent.name_iid */
  TAG_EVENT_NAME = 2 << 3 | 2,   /* InternedData.event_names */
  TAG_IID = 1 << 3,              /* DebugAnnotation.name_iid, EventName.iid */
  TAG_NAME = 2 << 3 | 2,         /* EventName.name */
  TAG_UINT_VALUE = 3 << 3,       /* DebugAnnotation.uint_value */
};

/* A slice's begin or end: what protobuf-c would pack for a TracePacket of
 * timestamp, trusted_packet_sequence_id, track_event (its debug annotation,
 * type, name_iid), interned_data (the name at its first use) and
 * sequence_flags, in field-number order.  Every tag and small constant is
 * one byte. */
static void put_event(perfetto *x, const ip_logged_call *c, int begin) {
  uint64_t at = begin ? c->start_ns : c->start_ns + c->dur_ns;
  uint64_t delta = at - x->last_ns; /* calls nest: times never go back */
  x->last_ns = at;
  if (!begin) { /* the most frequent packet: no annotation, no name */
    size_t n = 1 + ip_pb_varint_len(delta) + x->seq_field_len + 4 + 2;
    uint8_t *p = ip_pb_out_reserve(&x->out, 16 + n);
    *p++ = TAG_PACKET;
    p = ip_pb_varint(p, n);
    *p++ = TAG_TIMESTAMP;
    p = ip_pb_varint(p, delta);
    memcpy(p, x->seq_field, 8); /* room: 16 bytes more were reserved */
    p += x->seq_field_len;
    *p++ = TAG_TRACK_EVENT;
    *p++ = 2;
    *p++ = TAG_TYPE;
    *p++ = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
    *p++ = TAG_FLAGS;
    *p++ = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    ip_pb_out_commit(&x->out, p);
    return;
  }
  uint32_t f = c->func < x->s->n_funcs ? c->func : (uint32_t)x->s->n_funcs;
  uint64_t iid = (uint64_t)f + 1, rest = c->dur_ns - c->app_ns;
  /* the lengths first, then every field straight into the output */
  size_t ann = c->dur_ns > c->app_ns ? 3 + ip_pb_varint_len(rest) : 0; /* the debug annotation */
  size_t ev = 2 + (ann ? 1 + ip_pb_varint_len(ann) + ann : 0) + 1 + ip_pb_varint_len(iid);
  const char *name = NULL;
  size_t name_len = 0, interned = 0, event_name = 0;
  if (!x->interned[f]) {
    x->interned[f] = 1;
    name = func_name(x->s, c->func);
    name_len = strlen(name);
    event_name = 1 + ip_pb_varint_len(iid) + 1 + ip_pb_varint_len(name_len) + name_len;
    interned = 1 + ip_pb_varint_len(event_name) + event_name;
  }
  size_t n = 1 + ip_pb_varint_len(delta) + x->seq_field_len + 1 + ip_pb_varint_len(ev) + ev +
             (name ? 1 + ip_pb_varint_len(interned) + interned : 0) + 2;
  uint8_t *p = ip_pb_out_reserve(&x->out, 16 + n);
  *p++ = TAG_PACKET;
  p = ip_pb_varint(p, n);
  *p++ = TAG_TIMESTAMP;
  p = ip_pb_varint(p, delta);
  memcpy(p, x->seq_field, 8);
  p += x->seq_field_len;
  *p++ = TAG_TRACK_EVENT;
  p = ip_pb_varint(p, ev);
  if (ann) {
    *p++ = TAG_ANNOTATION;
    p = ip_pb_varint(p, ann);
    *p++ = TAG_IID;
    *p++ = IID_TRANSITIONAL;
    *p++ = TAG_UINT_VALUE;
    p = ip_pb_varint(p, rest);
  }
  *p++ = TAG_TYPE;
  *p++ = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
  *p++ = TAG_NAME_IID;
  p = ip_pb_varint(p, iid);
  if (name) {
    *p++ = TAG_INTERNED;
    p = ip_pb_varint(p, interned);
    *p++ = TAG_EVENT_NAME;
    p = ip_pb_varint(p, event_name);
    p = ip_pb_varint_field(p, 1, iid);
    p = ip_pb_bytes_field(p, 2, name, name_len);
  }
  *p++ = TAG_FLAGS;
  *p++ = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
  ip_pb_out_commit(&x->out, p);
}

static void put_packet_cb(void *ctx, const Perfetto__Protos__TracePacket *p) { put_packet(ctx, p); }

static void on_open(void *ctx, const ip_logged_call *c) { put_event(ctx, c, 1); }
static void on_close(void *ctx, const ip_logged_call *c) { put_event(ctx, c, 0); }

/* A begin and an end packet: framing, the delta timestamps, the sequence's
 * id and flags, the TrackEvent's type and name iid (26 bytes with one-byte
 * varints, as measured), a little more for a debug annotation on average
 * (the interned names are counted apart, as fixed). */
static uint32_t call_size(const ip_session *s, const ip_thread *t, uint32_t func, uint64_t start_ns,
                          uint64_t dur_ns) {
  (void)s;
  (void)t;
  (void)start_ns;
  return 2 * 13 + (uint32_t)ip_pb_varint_len(dur_ns) +
         (uint32_t)ip_pb_varint_len((uint64_t)func + 1);
}

static uint64_t fixed_size(const ip_session *s) {
  uint64_t n = 4096;
  for (size_t t = 0; t < s->n_threads; t++)
    n += 128;
  for (size_t i = 0; i < s->n_funcs; i++)
    n += 16 + strlen(s->funcs[i].pretty ? s->funcs[i].pretty : s->funcs[i].name);
  return n;
}

/* One begin or end of an operation on its lane. */
typedef struct op_event {
  uint64_t at;
  uint32_t op, lane;
  int begin;
} op_event;

static int by_time(const void *a, const void *b) {
  const op_event *x = a, *y = b;
  if (x->at != y->at)
    return x->at < y->at ? -1 : 1;
  if (x->begin != y->begin)
    return x->begin - y->begin; /* an end before a begin at the same time */
  return x->op < y->op ? -1 : x->op > y->op;
}

static void annotation(Perfetto__Protos__DebugAnnotation *a, char *name, uint64_t value) {
  a->name = name;
  a->has_uint_value = 1;
  a->uint_value = value;
}

static void interned_name(Perfetto__Protos__EventName *en, uint64_t iid, char *name) {
  en->has_iid = 1;
  en->iid = iid;
  en->name = name;
}

/* An operation's begin (named, with its Ran and Suspended ns) or end. */
static void put_op_event(perfetto *x, const ip_operation *op, const op_event *e) {
  Perfetto__Protos__TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
  te.has_type = te.has_track_uuid = 1;
  te.track_uuid = UUID_LANE(e->lane);
  te.type = e->begin ? PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN
                     : PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
  Perfetto__Protos__DebugAnnotation ran = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;
  Perfetto__Protos__DebugAnnotation sus = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;
  Perfetto__Protos__DebugAnnotation *notes[] = {&ran, &sus};
  Perfetto__Protos__EventName en = PERFETTO__PROTOS__EVENT_NAME__INIT;
  Perfetto__Protos__EventName *names[] = {&en};
  Perfetto__Protos__InternedData in = PERFETTO__PROTOS__INTERNED_DATA__INIT;
  Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  if (e->begin) {
    te.has_name_iid = 1;
    te.name_iid = (uint64_t)op->func + 1;
    annotation(&ran, "ran_ns", op->ran);
    annotation(&sus, "suspended_ns", op->suspended);
    te.n_debug_annotations = 2;
    te.debug_annotations = notes;
    if (!x->interned[op->func]) {
      x->interned[op->func] = 1;
      interned_name(&en, te.name_iid, x->op_name);
      in.n_event_names = 1;
      in.event_names = names;
      p.interned_data = &in;
    }
  }
  p.has_timestamp = p.has_trusted_packet_sequence_id = p.has_sequence_flags = 1;
  p.timestamp = e->at - x->last_ns;
  x->last_ns = e->at;
  p.trusted_packet_sequence_id = x->seq;
  p.track_event = &te;
  p.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
  put_packet(x, &p);
}

/* The coroutine operations (model/operations.h) as slices on async tracks
 * of their process: one track per lane, a lane being a coroutine's track
 * that holds one operation at a time (as many lanes as operations of it
 * overlap), named after the coroutine's body; on a sequence of their own
 * after the threads' and the critical path's.  With --slowest, none. */
static void put_operations(perfetto *x, const ip_export_opts *o) {
  if (o->sel.n_windows)
    return;
  ip_operations ops;
  ip_operations_build(x->s, &ops);
  op_event *ev = ip_must_calloc(2 * ops.n_ops + 1, sizeof *ev);
  typedef struct lane {
    uint32_t func, process;
    uint64_t end;
  } lane;
  lane *lanes = NULL;
  size_t n_ev = 0, n_lanes = 0, cap_lanes = 0;
  for (size_t i = 0; i < ops.n_ops; i++) {
    const ip_operation *op = &ops.ops[i];
    if (!ip_selected_thread(x->s, &o->sel, &x->s->threads[op->thread_start]) ||
        (o->sel.has_range && (op->tl_end < o->sel.start_ns || op->tl_start >= o->sel.end_ns)))
      continue;
    ev[n_ev++] = (op_event){op->tl_start, (uint32_t)i, 0, 1};
    ev[n_ev++] =
        (op_event){op->tl_end > op->tl_start ? op->tl_end : op->tl_start, (uint32_t)i, 0, 0};
  }
  qsort(ev, n_ev, sizeof *ev, by_time);
  uint32_t *lane_of = ip_must_calloc(ops.n_ops + 1, sizeof *lane_of);
  for (size_t k = 0; k < n_ev; k++) { /* each operation on the first lane free at its start */
    const ip_operation *op = &ops.ops[ev[k].op];
    if (!ev[k].begin) {
      ev[k].lane = lane_of[ev[k].op];
      lanes[ev[k].lane].end = ev[k].at; /* free again */
      continue;
    }
    size_t l = 0;
    while (l < n_lanes && (lanes[l].func != op->func || lanes[l].process != op->process ||
                           lanes[l].end == UINT64_MAX))
      l++;
    if (l == n_lanes) {
      ip_must_grow((void **)&lanes, &cap_lanes, n_lanes + 1, sizeof *lanes);
      lanes[n_lanes++] = (lane){op->func, op->process, 0};
      Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
      td.has_uuid = td.has_parent_uuid = 1;
      td.uuid = UUID_LANE(l);
      td.parent_uuid = UUID_PROCESS(op->process);
      td.name = ip_operation_name(func_name(x->s, op->func));
      put_track(x, &td);
      free(td.name);
    }
    lanes[l].end = UINT64_MAX; /* busy until the operation's end */
    lane_of[ev[k].op] = (uint32_t)l;
    ev[k].lane = (uint32_t)l;
  }
  if (n_ev) {
    x->seq = SEQ_DESCRIPTORS + 2 + (uint32_t)x->s->n_threads; /* after the critical path's */
    x->interned = ip_must_calloc(x->s->n_funcs + 1, 1);
    start_sequence(x, ops.ops[ev[0].op].thread_start);
    for (size_t k = 0; k < n_ev; k++) {
      x->op_name = ip_operation_name(func_name(x->s, ops.ops[ev[k].op].func));
      put_op_event(x, &ops.ops[ev[k].op], &ev[k]);
      free(x->op_name);
    }
    free(x->interned);
  }
  free(lane_of);
  free(lanes);
  free(ev);
  ip_operations_free(&ops);
}

static const ip_call_visitor *begin_perfetto(ip_export_job *job) {
  return ip_timeline_budget_begin(job, "perfetto", IP_PERFETTO_DEFAULT_MAX_SIZE, call_size);
}

static int write_perfetto(ip_export_job *job, const ip_session *s) {
  ip_timeline_budget *tb = job->stream;
  const ip_critical *crit =
      job->opts->critical && job->critical && job->critical->piece_ns ? job->critical : NULL;
  ip_wake_flow *flows = NULL;
  size_t n_flows = crit ? ip_critical_flows(s, crit, &flows) : 0;
  /* the path's slices and the flows' instants: about 60 bytes each */
  uint64_t fixed = fixed_size(s) + (crit ? 120 * (crit->n_pieces + n_flows) : 0);
  ip_timeline_budget_plan(tb, s, fixed);
  perfetto x = {.s = s};
  ip_pb_out_init(&x.out, job->out);
  put_descriptors(&x, job->opts);
  for (size_t t = 0; t < s->n_threads; t++) {
    if (!ip_call_log_count(tb->log, t))
      continue;
    x.seq = SEQ_DESCRIPTORS + 1 + (uint32_t)t;
    x.interned = ip_must_calloc(s->n_funcs + 1, 1);
    start_sequence(&x, t);
    ip_timeline_fn fn = {&x, on_open, on_close};
    ip_timeline_budget_replay(tb, t, &fn);
    free(x.interned);
  }
  if (crit)
    ip_perfetto_critical(s, crit, &job->opts->sel, flows, n_flows,
                         SEQ_DESCRIPTORS + 1 + (uint32_t)s->n_threads, put_packet_cb, &x);
  free(flows);
  put_operations(&x, job->opts);
  ip_pb_out_flush(&x.out);
  free(x.buf);
  ip_timeline_budget_report(tb, stderr, fixed);
  ip_timeline_budget_discard(job);
  return 0;
}

const ip_exporter ip_exporter_perfetto = {
    .name = "perfetto",
    .readers = "Perfetto UI",
    .default_output = "inclprof.perfetto-trace",
    .operations = 1,
    .options = IP_EXOPT_MIN_DURATION | IP_EXOPT_TIME_RANGE | IP_EXOPT_SLOWEST |
               IP_EXOPT_SLOWEST_CALLS | IP_EXOPT_MAX_EVENTS | IP_EXOPT_MAX_SIZE | IP_EXOPT_CRITICAL,
    .begin = begin_perfetto,
    .discard = ip_timeline_budget_discard,
    .write = write_perfetto,
};
