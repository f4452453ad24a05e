/* test_export_pictures.c - the picture exports on a hand-built session: the
 * call log's time order (callers open before callees, empty calls and calls
 * sharing a start nest by depth, filters), the speedscope file (a sampled
 * merged tree, evented threads with exact opens and closes), the Perfetto
 * trace (decoded again with protobuf-c: descriptors, sequences, interning,
 * incremental timestamps) and the HTML page (value columns, trees, names
 * made safe inside <script>, nothing fetched). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/call_log.h"
#include "export/exporter.h"
#include "perfetto_trace.pb-c.h"
#include "test_export_fixture.h"
#include "check_main.h"

static ip_session sess;
static ip_export_opts opts;
static char *text;
static size_t text_len;

static void setup(void) {
  fx_session(&sess);
  memset(&opts, 0, sizeof opts);
  text = NULL;
}
static void teardown(void) {
  ip_session_free(&sess);
  free(text);
}

/* Thread 100's calls as the replay reports them (each when it ends):
 * main [0,100) calls a [0,0), b [0,30) (which calls c [10,20)), d [30,30)
 * and e [30,100).  Thread 101: fact [5,9). */
static void feed(const ip_call_visitor *v) {
  ip_thread *t = &sess.threads[0];
  v->on_call(v->ctx, &sess, t, FX_FOO, 1, 0, 0, 0);     /* a */
  v->on_call(v->ctx, &sess, t, FX_BAR, 2, 10, 10, 10);  /* c */
  v->on_call(v->ctx, &sess, t, FX_FOO, 1, 0, 30, 20);   /* b */
  v->on_call(v->ctx, &sess, t, FX_BAR, 1, 30, 0, 0);    /* d */
  v->on_call(v->ctx, &sess, t, FX_FOO, 1, 30, 70, 70);  /* e */
  v->on_call(v->ctx, &sess, t, FX_MAIN, 0, 0, 100, 90); /* main */
  v->on_call(v->ctx, &sess, &sess.threads[1], FX_FACT, 0, 5, 4, 4);
}

static char seq[512];
static void seq_add(char kind, const ip_logged_call *c) {
  size_t n = strlen(seq);
  snprintf(seq + n, sizeof seq - n, "%s%c%u@%llu", n ? " " : "", kind, (unsigned)c->func,
           (unsigned long long)(kind == 'O' ? c->start_ns : c->start_ns + c->dur_ns));
}
static void on_open(void *ctx, const ip_logged_call *c) { (void)ctx, seq_add('O', c); }
static void on_close(void *ctx, const ip_logged_call *c) { (void)ctx, seq_add('C', c); }

static size_t max_in_memory = 1000;

static const char *timeline(size_t thread) {
  ip_call_log *log = ip_call_log_new(&opts, max_in_memory);
  feed(ip_call_log_visitor(log));
  seq[0] = 0;
  ip_timeline_fn fn = {NULL, on_open, on_close};
  ip_call_log_replay(log, thread, &fn);
  ip_call_log_free(log);
  return seq;
}

START_TEST(call_log_order) {
  /* FX_MAIN 0, FX_FOO 1, FX_BAR 2, FX_FACT 3 */
  ck_assert_str_eq(timeline(0), "O0@0 O1@0 C1@0 O1@0 O2@10 C2@20 C1@30 O2@30 C2@30 O1@30 C1@100 "
                                "C0@100");
  ck_assert_str_eq(timeline(1), "O3@5 C3@9");
  ck_assert_str_eq(timeline(2), "");
}
END_TEST

/* With room for one or two calls in memory, the rest go to the temporary
 * file in sorted runs (one or two calls each) and are merged back: the
 * same opens and closes in the same order. */
START_TEST(call_log_spilled) {
  char in_memory[512];
  snprintf(in_memory, sizeof in_memory, "%s", timeline(0));
  for (max_in_memory = 1; max_in_memory <= 3; max_in_memory++) {
    ck_assert_str_eq(timeline(0), in_memory);
    ck_assert_str_eq(timeline(1), "O3@5 C3@9");
  }
  max_in_memory = 1000;
}
END_TEST

/* Calls at equal starts: b [0,30) ends with an empty call c [30,30), and d
 * [30,40) begins when b ends.  Begin order is by start, then depth: d (depth
 * 1) before c (depth 2), which then nests in d; in memory and spilled. */
static void feed_ties(const ip_call_visitor *v) {
  ip_thread *t = &sess.threads[0];
  v->on_call(v->ctx, &sess, t, FX_FACT, 2, 30, 0, 0);   /* c */
  v->on_call(v->ctx, &sess, t, FX_FOO, 1, 0, 30, 30);   /* b */
  v->on_call(v->ctx, &sess, t, FX_BAR, 1, 30, 10, 10);  /* d */
  v->on_call(v->ctx, &sess, t, FX_MAIN, 0, 0, 100, 90); /* main */
}

/* Calls that do not nest as a call tree (two outermost calls, the later
 * reported first, and a callee reported after its caller): still by start. */
static void feed_unnested(const ip_call_visitor *v) {
  ip_thread *t = &sess.threads[0];
  v->on_call(v->ctx, &sess, t, FX_FOO, 0, 50, 10, 10);
  v->on_call(v->ctx, &sess, t, FX_BAR, 0, 10, 10, 10);
  v->on_call(v->ctx, &sess, t, FX_MAIN, 0, 0, 5, 5);
  v->on_call(v->ctx, &sess, t, FX_FACT, 1, 1, 2, 2);
}

static const char *timeline_of(void (*fed)(const ip_call_visitor *)) {
  ip_call_log *log = ip_call_log_new(&opts, max_in_memory);
  fed(ip_call_log_visitor(log));
  seq[0] = 0;
  ip_timeline_fn fn = {NULL, on_open, on_close};
  ip_call_log_replay(log, 0, &fn);
  ip_call_log_free(log);
  return seq;
}

START_TEST(call_log_ties) {
  for (max_in_memory = 1; max_in_memory <= 5; max_in_memory++) {
    ck_assert_str_eq(timeline_of(feed_ties), "O0@0 O1@0 C1@30 O2@30 O3@30 C3@30 C2@40 C0@100");
    ck_assert_str_eq(timeline_of(feed_unnested), "O0@0 O3@1 C3@3 C0@5 O2@10 C2@20 O1@50 C1@60");
  }
  max_in_memory = 1000;
}
END_TEST

/* A callee kept whose caller is not (skipped, or dropped and counted): the
 * caller's slot, taken when the callee ended, is left out; in memory and
 * spilled. */
START_TEST(call_log_caller_left_out) {
  const ip_thread *t = &sess.threads[0];
  for (max_in_memory = 1; max_in_memory <= 5; max_in_memory++)
    for (int dropped = 0; dropped <= 1; dropped++) {
      ip_call_log *log = ip_call_log_new(&opts, max_in_memory);
      ip_call_log_add(log, &sess, t, FX_BAR, 2, 10, 10, 10); /* c */
      if (dropped)
        ip_call_log_drop(log, &sess, t, 1); /* b */
      else
        ip_call_log_skip(log, &sess, t, 1);
      ip_call_log_add(log, &sess, t, FX_FOO, 1, 30, 10, 10);  /* d */
      ip_call_log_add(log, &sess, t, FX_MAIN, 0, 0, 100, 90); /* main */
      ck_assert_uint_eq(ip_call_log_count(log, 0), 3 + (size_t)dropped);
      seq[0] = 0;
      ip_timeline_fn fn = {NULL, on_open, on_close};
      ip_call_log_replay(log, 0, &fn);
      ip_call_log_free(log);
      ck_assert_str_eq(seq, "O0@0 O2@10 C2@20 O1@30 C1@40 C0@100");
    }
  max_in_memory = 1000;
}
END_TEST

START_TEST(call_log_filters) {
  opts.min_duration_ns = 20; /* a, c, d and fact are shorter */
  ck_assert_str_eq(timeline(0), "O0@0 O1@0 C1@30 O1@30 C1@100 C0@100");
  ck_assert_str_eq(timeline(1), "");
  opts.min_duration_ns = 0;
  opts.sel.has_tid = 1;
  opts.sel.tid = 101;
  ck_assert_str_eq(timeline(0), "");
  ck_assert_str_eq(timeline(1), "O3@5 C3@9");
  opts.sel.has_tid = 0;
  opts.sel.has_range = 1; /* calls overlapping [12, 25): main, b, c */
  opts.sel.start_ns = 12;
  opts.sel.end_ns = 25;
  ck_assert_str_eq(timeline(0), "O0@0 O1@0 O2@10 C2@20 C1@30 C0@100");
}
END_TEST

/* Runs format name (a streaming one is fed the calls above) into text. */
static const char *run(const char *name) {
  const ip_exporter *e = ip_exporter_find(name);
  ck_assert_ptr_nonnull(e);
  free(text);
  text = NULL;
  FILE *f = open_memstream(&text, &text_len);
  ck_assert_ptr_nonnull(f);
  ip_export_job job = {.opts = &opts, .out = f, .out_name = "-"};
  if (e->begin)
    feed(e->begin(&job));
  ck_assert_int_eq(e->write(&job, &sess), 0);
  fclose(f);
  return text;
}

START_TEST(speedscope_file) {
  const char *t = run("speedscope");
  /* the merged tree: every path with its Exclusive Elapsed time (the 7 ns of
   * thread 101 outside every function belong to no path) */
  ck_assert_ptr_nonnull(strstr(t, "{\"type\":\"sampled\",\"name\":\"all threads: Elapsed\","
                                  "\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":605,"));
  ck_assert_ptr_nonnull(strstr(t, "\"weights\":[10,20,30,5,40,50,200,250]}"));
  ck_assert_ptr_nonnull(strstr(t, "\"samples\":[[0],[0,0],[0,0,0],[0,0,0,1],[0,0,0,2],[3],[3,4],"
                                  "[3,4,5]]"));
  /* frames in order of first use: fact, Box, write, main, foo, bar */
  ck_assert_ptr_nonnull(strstr(t,
                               "\"shared\":{\"frames\":[\n{\"name\":\"fact(int)\",\"file\":"
                               "\"demo.c\",\"line\":40},\n{\"name\":\"ns::Box<int, \\\"q\\\\\\\\"
                               "\\\">::get() const\",\"file\":\"box.hpp\",\"line\":7},\n{\"name\":"
                               "\"write\"},\n{\"name\":\"main\""));
  ck_assert_ptr_nonnull(strstr(
      t, "{\"type\":\"evented\",\"name\":\"thread 100 (main)\",\"unit\":\"nanoseconds\","
         "\"startValue\":0,\"endValue\":500,\"events\":[\n{\"type\":\"O\",\"frame\":3,\"at\":0},\n"
         "{\"type\":\"O\",\"frame\":4,\"at\":0},\n{\"type\":\"C\",\"frame\":4,\"at\":0},\n"));
  ck_assert_ptr_nonnull(strstr(t, "{\"type\":\"C\",\"frame\":4,\"at\":100},\n"
                                  "{\"type\":\"C\",\"frame\":3,\"at\":100}]}"));
  ck_assert_ptr_nonnull(strstr(t, "\"name\":\"thread 101 (worker)\",\"unit\":\"nanoseconds\","
                                  "\"startValue\":100,\"endValue\":212,\"events\":[\n"
                                  "{\"type\":\"O\",\"frame\":0,\"at\":5},\n"
                                  "{\"type\":\"C\",\"frame\":0,\"at\":9}]}"));
  opts.value = IP_VALUE_SAMPLES;
  t = run("speedscope");
  ck_assert_ptr_nonnull(strstr(t, "\"name\":\"all threads: samples\",\"unit\":\"none\","
                                  "\"startValue\":0,\"endValue\":6,"));
  ck_assert_ptr_nonnull(strstr(t, "\"weights\":[2,1,3]}"));
}
END_TEST

START_TEST(perfetto_trace) {
  run("perfetto");
  Perfetto__Protos__Trace *tr = perfetto__protos__trace__unpack(NULL, text_len, (uint8_t *)text);
  ck_assert_ptr_nonnull(tr);
  /* 1 process and 2 thread descriptors; per thread a first packet and two
   * packets per call: 3 + (1 + 12) + (1 + 2) */
  ck_assert_uint_eq(tr->n_packet, 19);
  ck_assert_int_eq(tr->packet[0]->track_descriptor->process->pid, 100);
  ck_assert_str_eq(tr->packet[0]->track_descriptor->process->process_name, "demo");
  const Perfetto__Protos__TrackDescriptor *td = tr->packet[1]->track_descriptor;
  ck_assert_int_eq(td->thread->tid, 100);
  ck_assert_str_eq(td->thread->thread_name, "main");
  const Perfetto__Protos__TracePacket *first = tr->packet[3];
  ck_assert_uint_eq(first->sequence_flags, 1);
  ck_assert_uint_eq(first->trace_packet_defaults->track_event_defaults->track_uuid, td->uuid);
  ck_assert_uint_eq(first->trace_packet_defaults->timestamp_clock_id, 64);
  ck_assert_uint_eq(first->clock_snapshot->n_clocks, 2);
  ck_assert(first->clock_snapshot->clocks[1]->is_incremental);
  ck_assert_str_eq(first->interned_data->debug_annotation_names[0]->name, "transitional_ns");
  static const char *const want[] = {"B0 main", "B0 foo", "E0",  "B0",  "B10 bar", "E20",
                                     "E30",     "B30",    "E30", "B30", "E100",    "E100"};
  uint64_t at = 0;
  for (size_t i = 0; i < 12; i++) {
    const Perfetto__Protos__TracePacket *p = tr->packet[4 + i];
    char got[64];
    at += p->timestamp;
    ck_assert_uint_eq(p->trusted_packet_sequence_id, first->trusted_packet_sequence_id);
    ck_assert_uint_eq(p->sequence_flags, 2);
    const char *interned = p->interned_data ? p->interned_data->event_names[0]->name : "";
    snprintf(got, sizeof got, "%c%llu%s%s",
             p->track_event->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN ? 'B'
                                                                                           : 'E',
             (unsigned long long)at, *interned ? " " : "", interned);
    ck_assert_str_eq(got, want[i]);
  }
  /* b [0,30) spent 10 ns outside Application time, main 10 ns, the rest none */
  ck_assert_uint_eq(tr->packet[4]->track_event->n_debug_annotations, 1);
  ck_assert_uint_eq(tr->packet[4]->track_event->debug_annotations[0]->uint_value, 10);
  ck_assert_uint_eq(tr->packet[7]->track_event->debug_annotations[0]->uint_value, 10);
  ck_assert_uint_eq(tr->packet[5]->track_event->n_debug_annotations, 0);
  ck_assert_uint_eq(tr->packet[7]->track_event->name_iid, tr->packet[5]->track_event->name_iid);
  ck_assert_uint_eq(tr->packet[16]->sequence_flags, 1); /* thread 101's own sequence */
  ck_assert_uint_ne(tr->packet[16]->trusted_packet_sequence_id, first->trusted_packet_sequence_id);
  ck_assert_uint_eq(tr->packet[17]->timestamp, 5);
  ck_assert_str_eq(tr->packet[17]->interned_data->event_names[0]->name, "fact(int)");
  perfetto__protos__trace__free_unpacked(tr, NULL);
}
END_TEST

static int count(const char *t, const char *what) {
  int n = 0;
  for (const char *p = t; (p = strstr(p, what)); p++)
    n++;
  return n;
}

START_TEST(html_page) {
  const char *t = run("html");
  ck_assert_ptr_nonnull(strstr(t, "<!DOCTYPE html>"));
  ck_assert_ptr_nonnull(strstr(t, "<title>inclprof: demo</title>"));
  ck_assert_int_eq(count(t, "</script>"), 2);
  ck_assert_int_eq(count(t, "http"), 0);
  ck_assert_ptr_nonnull(strstr(
      t, "{\"columns\":[{\"name\":\"Elapsed\",\"unit\":\"ns\",\"total\":612},{\"name\":"
         "\"Application\",\"unit\":\"ns\",\"total\":512},{\"name\":\"Samples\",\"unit\":\"\","
         "\"total\":6}],\"share\":[1,0]"));
  /* merged tree first (preorder: name index, depth, calls, Inclusive per column) */
  ck_assert_ptr_nonnull(strstr(t, "\"trees\":[{\"name\":\"all threads\",\"f\":[0,0,0,1,2,3,4,5],"
                                  "\"d\":[0,1,2,3,3,0,1,2],\"c\":[1,1,1,3,1,1,1,2],"
                                  "\"v\":[[105,95,75,5,40,500,450,250],[65,55,35,5,0,440,400,250],"
                                  "[2,2,2,0,0,4,4,3]],\"r\":[7,7,0]}"));
  ck_assert_ptr_nonnull(strstr(t, "{\"name\":\"thread 100 (main)\",\"f\":[3,4,5],\"d\":[0,1,2]"));
  ck_assert_ptr_nonnull(strstr(t, "{\"name\":\"thread 101 (worker)\""));
  /* "<" inside the data is \u003c, so no name can end the <script> element */
  ck_assert_ptr_nonnull(strstr(t,
                               "\"names\":[\"fact(int)\",\"ns::Box\\u003cint, \\\"q\\\\\\\\\\\">"
                               "::get() const\",\"write\",\"main\",\"foo\",\"bar\"],\n\"mods\":["));
  sess.processes[0].sample_hz = 0; /* unsampled: no Samples column */
  for (size_t i = 0; i < sess.n_threads; i++)
    sess.threads[i].total.smp_incl = 0;
  sess.total.smp_incl = 0;
  opts.sel.has_tid = 1;
  opts.sel.tid = 100; /* one thread: its tree alone */
  t = run("html");
  ck_assert_int_eq(count(t, "\"name\":\"Samples\""), 0);
  ck_assert_int_eq(count(t, "{\"name\":\"all threads\""), 1);
  ck_assert_int_eq(count(t, "{\"name\":\"thread "), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("export_pictures");
  TCase *tc = tcase_create("pictures");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, call_log_order);
  tcase_add_test(tc, call_log_spilled);
  tcase_add_test(tc, call_log_ties);
  tcase_add_test(tc, call_log_caller_left_out);
  tcase_add_test(tc, call_log_filters);
  tcase_add_test(tc, speedscope_file);
  tcase_add_test(tc, perfetto_trace);
  tcase_add_test(tc, html_page);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
