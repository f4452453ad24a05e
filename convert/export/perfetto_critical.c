/* export/perfetto_critical.c - the critical path in the Perfetto trace
 * (`export --format perfetto --critical`, traces with wake edges): a packet
 * sequence of its own, absolute timestamps on the trace's clock (BOOTTIME,
 * whose 0 is the session start, as the threads' sequences set it), names as
 * strings.  Per process a "critical path" track holds one slice per piece
 * of the path, in time order, named by what its thread did then and by the
 * thread; each wake edge is a flow from an instant "wake-up" on the waker's
 * thread track to an instant "woken" on the woken thread's. */
#include "export/perfetto_critical.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/util.h"

enum { CLOCK_BOOTTIME = 6 };

static const char *const kind_names[IP_CP_KINDS] = {
    "running", "waiting for a CPU", "asleep with no traced waker", "thread starting"};

typedef struct out {
  ip_perfetto_put_fn *put;
  void *ctx;
  uint32_t seq;
  int first; /* the sequence's first packet is still to come */
} out;

static void put_at(out *o, Perfetto__Protos__TracePacket *p, uint64_t ns) {
  p->has_trusted_packet_sequence_id = 1;
  p->trusted_packet_sequence_id = o->seq;
  if (ns != UINT64_MAX) {
    p->has_timestamp = p->has_timestamp_clock_id = 1;
    p->timestamp = ns;
    p->timestamp_clock_id = CLOCK_BOOTTIME;
  }
  if (o->first) {
    o->first = 0;
    p->has_sequence_flags = p->has_first_packet_on_sequence = 1;
    p->sequence_flags =
        PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
    p->first_packet_on_sequence = 1;
  }
  o->put(o->ctx, p);
}

static void put_event(out *o, uint64_t track, int type, const char *name, uint64_t ns,
                      uint64_t *flow, uint64_t *end_flow) {
  Perfetto__Protos__TrackEvent e = PERFETTO__PROTOS__TRACK_EVENT__INIT;
  e.has_type = e.has_track_uuid = 1;
  e.type = (Perfetto__Protos__TrackEvent__Type)type;
  e.track_uuid = track;
  e.name = (char *)name;
  if (flow) {
    e.n_flow_ids = 1;
    e.flow_ids = flow;
  }
  if (end_flow) {
    e.n_terminating_flow_ids = 1;
    e.terminating_flow_ids = end_flow;
  }
  Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  p.track_event = &e;
  put_at(o, &p, ns);
}

typedef struct timed {
  uint64_t from, to;
  size_t i;
} timed;

static int by_from(const void *a, const void *b) {
  const timed *x = a, *y = b;
  return x->from != y->from ? (x->from < y->from ? -1 : 1) : (x->i > y->i) - (x->i < y->i);
}

/* Process p's pieces as slices on its track, oldest first. */
static void put_track(out *o, const ip_session *s, const ip_critical *c, const ip_selection *sel,
                      size_t p, timed *v) {
  size_t n = 0;
  for (size_t i = 0; i < c->n_pieces; i++) {
    const ip_cp_piece *q = &c->pieces[i];
    if (q->thread < s->n_threads && s->threads[q->thread].process == p &&
        ip_selected_thread(s, sel, &s->threads[q->thread]) &&
        ip_critical_piece_ns(s, c, i, &v[n].from, &v[n].to))
      v[n++].i = i;
  }
  if (!n)
    return;
  qsort(v, n, sizeof *v, by_from);
  Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
  td.has_uuid = td.has_parent_uuid = 1;
  td.uuid = IP_PERFETTO_UUID_CRITICAL(p);
  td.parent_uuid = IP_PERFETTO_UUID_PROCESS(p);
  td.name = "critical path";
  Perfetto__Protos__TracePacket tp = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  tp.track_descriptor = &td;
  put_at(o, &tp, UINT64_MAX);
  uint64_t last = 0;
  for (size_t k = 0; k < n; k++) {
    const ip_cp_piece *q = &c->pieces[v[k].i];
    const ip_thread *t = &s->threads[q->thread];
    uint64_t from = v[k].from < last ? last : v[k].from, to = v[k].to < from ? from : v[k].to;
    char name[300];
    snprintf(name, sizeof name, "%s: thread %" PRIu32 " (%s)",
             kind_names[q->kind < IP_CP_KINDS ? q->kind : 0], t->tid,
             t->name && *t->name ? t->name : "?");
    put_event(o, td.uuid, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, name, from, NULL,
              NULL);
    put_event(o, td.uuid, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END, NULL, to, NULL,
              NULL);
    last = to;
  }
}

void ip_perfetto_critical(const ip_session *s, const ip_critical *c, const ip_selection *sel,
                          const ip_wake_flow *flows, size_t n_flows, uint32_t seq,
                          ip_perfetto_put_fn *put, void *ctx) {
  out o = {put, ctx, seq, 1};
  timed *v = ip_must_calloc(c->n_pieces + 1, sizeof *v);
  for (size_t p = 0; p < s->n_processes; p++)
    put_track(&o, s, c, sel, p, v);
  free(v);
  for (size_t i = 0; i < n_flows; i++) {
    const ip_wake_flow *f = &flows[i];
    if (!ip_selected_thread(s, sel, &s->threads[f->waker]) ||
        !ip_selected_thread(s, sel, &s->threads[f->wakee]))
      continue;
    uint64_t id = i + 1;
    put_event(&o, IP_PERFETTO_UUID_THREAD(f->waker),
              PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, "wake-up", f->wake_ns, &id, NULL);
    put_event(&o, IP_PERFETTO_UUID_THREAD(f->wakee),
              PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, "woken", f->run_ns, NULL, &id);
  }
}
