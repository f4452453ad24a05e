/* test_record_wire.c - the field numbers of the records read or written by
 * hand (record_wire.h) are those of proto/inclprof.proto, looked up by name
 * in the protobuf-c descriptors generated from it; and the trace's tail
 * round-trips: the runtime's index (runtime/sink/trace_index.c) notes the
 * frames of a made-up trace and encodes its Index, Trailer and Footer, which
 * the converter's reader (convert/read/trace_index.c) reads back field by
 * field, the Footer through trace/trace_footer.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "frame_read.h"
#include "inclprof.pb-c.h"
#include "read/trace_index.h"
#include "record_wire.h"
#include "sink/sink.h"
#include "trace_footer.h"
#include "trace_frame.h"

static const ProtobufCFieldDescriptor *field(const ProtobufCMessageDescriptor *m,
                                             const char *name) {
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(m, name);
  ck_assert_msg(f != NULL, "%s has no field %s", m->name, name);
  return f;
}

START_TEST(record_kinds_match_the_proto) {
  const ProtobufCMessageDescriptor *r = &inclprof__record__descriptor;
  ck_assert_uint_eq(field(r, "header")->id, IP_TAG_RECORD_HEADER);
  ck_assert_uint_eq(field(r, "module")->id, IP_TAG_RECORD_MODULE);
  ck_assert_uint_eq(field(r, "function")->id, IP_TAG_RECORD_FUNCTION);
  ck_assert_uint_eq(field(r, "thread")->id, IP_TAG_RECORD_THREAD);
  ck_assert_uint_eq(field(r, "thread_end")->id, IP_TAG_RECORD_THREAD_END);
  ck_assert_uint_eq(field(r, "events")->id, IP_TAG_RECORD_EVENTS);
  ck_assert_uint_eq(field(r, "gap")->id, IP_TAG_RECORD_GAP);
  ck_assert_uint_eq(field(r, "mark")->id, IP_TAG_RECORD_MARK);
  ck_assert_uint_eq(field(r, "trailer")->id, IP_TAG_RECORD_TRAILER);
  ck_assert_uint_eq(field(r, "segment")->id, IP_TAG_RECORD_SEGMENT);
  ck_assert_uint_eq(field(r, "thread_state")->id, IP_TAG_RECORD_THREAD_STATE);
  ck_assert_uint_eq(field(r, "index")->id, IP_TAG_RECORD_INDEX);
  ck_assert_uint_eq(field(r, "footer")->id, IP_TAG_RECORD_FOOTER);
  ck_assert_uint_eq(field(r, "window")->id, IP_TAG_RECORD_WINDOW);
  ck_assert_uint_eq(field(r, "thread_profile")->id, IP_TAG_RECORD_THREAD_PROFILE);
  ck_assert_uint_eq(field(r, "snapshot")->id, IP_TAG_RECORD_SNAPSHOT);
  ck_assert_uint_eq(field(r, "table")->id, IP_TAG_RECORD_TABLE);
  ck_assert_uint_eq(field(r, "table_ref")->id, IP_TAG_RECORD_TABLE_REF);
  ck_assert_uint_eq(r->n_fields, 18); /* a new kind of record is named in record_wire.h */
}
END_TEST

START_TEST(thread_fields_match_the_proto) {
  const ProtobufCMessageDescriptor *t = &inclprof__thread__descriptor;
  const ProtobufCMessageDescriptor *e = &inclprof__thread_end__descriptor;
  ck_assert_uint_eq(field(t, "tid")->id, IP_TAG_THREAD_TID);
  ck_assert_uint_eq(field(t, "name")->id, IP_TAG_THREAD_NAME);
  ck_assert_uint_eq(field(t, "no_transitions")->id, IP_TAG_THREAD_NO_TRANSITIONS);
  ck_assert_uint_eq(field(e, "tid")->id, IP_TAG_THREAD_END_TID);
  ck_assert_uint_eq(field(e, "end_tick")->id, IP_TAG_THREAD_END_TICK);
  ck_assert_uint_eq(field(e, "alive_at_exit")->id, IP_TAG_THREAD_END_ALIVE);
  ck_assert_uint_eq(field(e, "stopped")->id, IP_TAG_THREAD_END_STOPPED);
  ck_assert_uint_eq(field(&inclprof__gap__descriptor, "tid")->id, IP_TAG_GAP_TID);
  ck_assert_uint_eq(field(&inclprof__gap__descriptor, "start_tick")->id, IP_TAG_GAP_START_TICK);
  ck_assert_uint_eq(field(&inclprof__gap__descriptor, "end_tick")->id, IP_TAG_GAP_END_TICK);
}
END_TEST

START_TEST(snapshot_read_fields_match_the_proto) {
  const ProtobufCMessageDescriptor *f = &inclprof__function__descriptor;
  const ProtobufCMessageDescriptor *sg = &inclprof__segment__descriptor;
  const ProtobufCMessageDescriptor *ts = &inclprof__thread_state__descriptor;
  ck_assert_uint_eq(field(f, "gid")->id, IP_TAG_FUNCTION_GID);
  ck_assert_uint_eq(field(f, "name")->id, IP_TAG_FUNCTION_NAME);
  ck_assert_uint_eq(field(f, "pretty")->id, IP_TAG_FUNCTION_PRETTY);
  ck_assert_uint_eq(field(f, "module")->id, IP_TAG_FUNCTION_MODULE);
  ck_assert_uint_eq(field(f, "id")->id, IP_TAG_FUNCTION_ID);
  ck_assert_uint_eq(field(f, "file")->id, IP_TAG_FUNCTION_FILE);
  ck_assert_uint_eq(field(f, "line")->id, IP_TAG_FUNCTION_LINE);
  ck_assert_uint_eq(field(f, "size")->id, IP_TAG_FUNCTION_SIZE);
  ck_assert_uint_eq(field(f, "flags")->id, IP_TAG_FUNCTION_FLAGS);
  ck_assert_uint_eq(field(f, "addr")->id, IP_TAG_FUNCTION_ADDR);
  ck_assert_uint_eq(f->n_fields, 10); /* a new field is encoded by trace/trace_frame.c */
  ck_assert_uint_eq(field(sg, "number")->id, IP_TAG_SEGMENT_NUMBER);
  ck_assert_uint_eq(field(sg, "start_tick")->id, IP_TAG_SEGMENT_START_TICK);
  ck_assert_uint_eq(field(ts, "tid")->id, IP_TAG_THREAD_STATE_TID);
  ck_assert_uint_eq(field(ts, "next_seq")->id, IP_TAG_THREAD_STATE_NEXT_SEQ);
  ck_assert_uint_eq(field(ts, "tick")->id, IP_TAG_THREAD_STATE_TICK);
  ck_assert_uint_eq(field(ts, "open")->id, IP_TAG_THREAD_STATE_OPEN);
  ck_assert_uint_eq(field(ts, "paused")->id, IP_TAG_THREAD_STATE_PAUSED);
  ck_assert_uint_eq(field(ts, "call_open")->id, IP_TAG_THREAD_STATE_CALL_OPEN);
  ck_assert_uint_eq(field(ts, "expect_ret")->id, IP_TAG_THREAD_STATE_EXPECT_RET);
}
END_TEST

START_TEST(tail_fields_match_the_proto) {
  const ProtobufCMessageDescriptor *ix = &inclprof__index__descriptor;
  const ProtobufCMessageDescriptor *it = &inclprof__index_thread__descriptor;
  const ProtobufCMessageDescriptor *ft = &inclprof__footer__descriptor;
  ck_assert_uint_eq(field(ix, "threads")->id, IP_TAG_INDEX_THREADS);
  ck_assert_uint_eq(field(ix, "modules")->id, IP_TAG_INDEX_MODULES);
  ck_assert_uint_eq(field(ix, "functions")->id, IP_TAG_INDEX_FUNCTIONS);
  ck_assert_uint_eq(field(ix, "mark_names")->id, IP_TAG_INDEX_MARK_NAMES);
  ck_assert_uint_eq(field(ix, "offset")->id, IP_TAG_INDEX_OFFSET);
  ck_assert_uint_eq(field(ix, "incomplete")->id, IP_TAG_INDEX_INCOMPLETE);
  ck_assert_uint_eq(field(ix, "tables")->id, IP_TAG_INDEX_TABLES);
  ck_assert_uint_eq(ix->n_fields, 7); /* no field that the encoder leaves out */
  ck_assert_uint_eq(field(it, "tid")->id, IP_TAG_INDEX_THREAD_TID);
  ck_assert_uint_eq(field(it, "name")->id, IP_TAG_INDEX_THREAD_NAME);
  ck_assert_uint_eq(field(it, "no_transitions")->id, IP_TAG_INDEX_THREAD_NO_TRANSITIONS);
  ck_assert_uint_eq(field(it, "events")->id, IP_TAG_INDEX_THREAD_EVENTS);
  ck_assert_uint_eq(field(it, "batches")->id, IP_TAG_INDEX_THREAD_BATCHES);
  ck_assert_uint_eq(field(it, "batches_lost")->id, IP_TAG_INDEX_THREAD_LOST);
  ck_assert_uint_eq(field(it, "gaps")->id, IP_TAG_INDEX_THREAD_GAPS);
  ck_assert_uint_eq(field(it, "alive_at_exit")->id, IP_TAG_INDEX_THREAD_ALIVE);
  ck_assert_uint_eq(field(it, "kernel_lost")->id, IP_TAG_INDEX_THREAD_KERNEL_LOST);
  ck_assert_uint_eq(field(it, "stopped")->id, IP_TAG_INDEX_THREAD_STOPPED);
  ck_assert_uint_eq(it->n_fields, 10);
  ck_assert_uint_eq(field(ft, "index_bytes")->id, IP_TAG_FOOTER_INDEX_BYTES);
  ck_assert_uint_eq(field(ft, "trailer_bytes")->id, IP_TAG_FOOTER_TRAILER_BYTES);
  ck_assert_int_eq(field(ft, "index_bytes")->type, PROTOBUF_C_TYPE_FIXED32);
  ck_assert_int_eq(field(ft, "trailer_bytes")->type, PROTOBUF_C_TYPE_FIXED32);
  ck_assert_uint_eq(ft->n_fields, 2);
}
END_TEST

/* The Footer the trace/ encoder writes is the one protobuf-c packs, and it
 * decodes back; a flipped bit anywhere in it is refused. */
START_TEST(footer_round_trips) {
  uint8_t out[IP_FOOTER_FRAME_LEN];
  ip_footer_encode(out, 123456, 789);
  Inclprof__Footer ft = INCLPROF__FOOTER__INIT;
  ft.index_bytes = 123456;
  ft.trailer_bytes = 789;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_FOOTER;
  rec.footer = &ft;
  uint8_t packed[64];
  ck_assert_uint_eq(ip_frame_max_size(&rec), IP_FOOTER_FRAME_LEN);
  ck_assert_uint_eq(ip_frame_encode(&rec, packed), IP_FOOTER_FRAME_LEN);
  ck_assert_mem_eq(out, packed, IP_FOOTER_FRAME_LEN);
  uint32_t ib = 0, tb = 0;
  ck_assert(ip_footer_decode(out, &ib, &tb));
  ck_assert_uint_eq(ib, 123456);
  ck_assert_uint_eq(tb, 789);
  for (size_t at = 0; at < IP_FOOTER_FRAME_LEN; at++) {
    out[at] ^= 4;
    ck_assert_msg(!ip_footer_decode(out, &ib, &tb), "a flip at byte %zu passes", at);
    out[at] ^= 4;
  }
}
END_TEST

/* ---- the tail through the runtime's encoder and the converter's reader -- */
static uint8_t image[1 << 16];
static size_t image_len;

/* Frames rec, lets the index note it as the writer does, and appends it. */
static void append(const Inclprof__Record *rec) {
  ck_assert_uint_le(image_len + ip_frame_max_size(rec), sizeof image);
  size_t n = ip_frame_encode(rec, image + image_len);
  ip_index_seen(image + image_len, n);
  image_len += n;
}

static void thread(uint32_t tid, const char *name, const char *why) {
  Inclprof__Thread t = INCLPROF__THREAD__INIT;
  t.tid = tid;
  t.name = (char *)name;
  t.no_transitions = (char *)why;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_THREAD;
  r.thread = &t;
  append(&r);
}

/* A batch of tid with kernel-event records kdt[0..nkdt) and its
 * kernel_lost flag. */
static void kernel_batch(uint32_t tid, uint64_t seq, size_t events, uint64_t *kdt, size_t nkdt,
                         int klost) {
  uint64_t dt[16] = {0};
  uint32_t code[16] = {0};
  ck_assert_uint_le(events, 16);
  for (size_t i = 0; i < events; i++) {
    dt[i] = 300 * i; /* two-byte varints too */
    code[i] = (uint32_t)(i << 3);
  }
  Inclprof__EventBatch b = INCLPROF__EVENT_BATCH__INIT;
  b.tid = tid;
  b.seq = seq;
  b.n_dt = b.n_code = events;
  b.dt = dt;
  b.code = code;
  b.n_kernel_dt = nkdt;
  b.kernel_dt = kdt;
  b.has_kernel_lost = b.kernel_lost = klost;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_EVENTS;
  r.events = &b;
  append(&r);
}

static void batch(uint32_t tid, uint64_t seq, size_t events) {
  kernel_batch(tid, seq, events, NULL, 0, 0);
}

static void gap(uint32_t tid) {
  Inclprof__Gap g = INCLPROF__GAP__INIT;
  g.tid = tid;
  g.start_tick = 10;
  g.end_tick = 20;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_GAP;
  r.gap = &g;
  append(&r);
}

static void thread_end(uint32_t tid, int alive) {
  Inclprof__ThreadEnd e = INCLPROF__THREAD_END__INIT;
  e.tid = tid;
  e.has_end_tick = 1;
  e.end_tick = 99;
  e.has_alive_at_exit = alive;
  e.alive_at_exit = alive;
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_THREAD_END;
  r.thread_end = &e;
  append(&r);
}

static void tables(void) {
  Inclprof__Module m = INCLPROF__MODULE__INIT;
  m.id = 1;
  m.path = "/usr/bin/prog";
  Inclprof__Function f = INCLPROF__FUNCTION__INIT;
  f.name = "work";
  Inclprof__MarkName k = INCLPROF__MARK_NAME__INIT;
  k.text = "phase";
  Inclprof__Record r = INCLPROF__RECORD__INIT;
  r.body_case = INCLPROF__RECORD__BODY_MODULE;
  r.module = &m;
  append(&r);
  r.body_case = INCLPROF__RECORD__BODY_FUNCTION;
  r.function = &f;
  for (uint32_t gid = 1; gid <= 3; gid++) {
    f.gid = gid;
    append(&r);
  }
  r.body_case = INCLPROF__RECORD__BODY_MARK;
  r.mark = &k;
  for (uint32_t id = 1; id <= 2; id++) {
    k.id = id;
    append(&r);
  }
}

START_TEST(index_round_trips_through_the_reader) {
  ip_frame_preamble(image);
  image_len = IP_TRACE_PREAMBLE_LEN;
  ip_index_start(1);
  tables();
  thread(7, "worker", "no counter here");
  thread(9, "main", NULL);
  batch(7, 0, 5);
  uint64_t kdt[] = {300 << 3 | INCLPROF__KERNEL_EVENT_KIND__KEV_LOST, /* a two-byte varint */
                    1 << 3 | INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT,
                    5 << 3 | INCLPROF__KERNEL_EVENT_KIND__KEV_LOST};
  kernel_batch(9, 0, 16, kdt, 3, 0);
  batch(7, 2, 3); /* batch 1 of thread 7 lost */
  gap(7);
  gap(7);
  thread_end(7, 1);
  thread(7, "reused", NULL); /* the tid reused after its end: a new thread */
  kernel_batch(7, 0, 1, NULL, 0, 1);

  Inclprof__Trailer tr = INCLPROF__TRAILER__INIT;
  tr.has_events = 1;
  tr.events = 25;
  Inclprof__Record trailer = INCLPROF__RECORD__INIT;
  trailer.body_case = INCLPROF__RECORD__BODY_TRAILER;
  trailer.trailer = &tr;
  uint8_t *tail;
  size_t mapped, n = ip_index_tail(&trailer, image_len, &tail, &mapped);
  ck_assert_uint_gt(n, IP_FOOTER_FRAME_LEN);
  ck_assert_uint_le(image_len + n, sizeof image);
  memcpy(image + image_len, tail, n);
  ip_index_tail_free(tail, mapped);
  size_t offset = image_len;
  image_len += n;

  /* The Footer names the two frames before it. */
  uint32_t ib, tb;
  ck_assert(ip_footer_decode(image + image_len - IP_FOOTER_FRAME_LEN, &ib, &tb));
  ck_assert_uint_eq(offset + ib + tb + IP_FOOTER_FRAME_LEN, image_len);
  ip_frame_view f;
  ck_assert_int_eq(ip_frame_read(image + offset, ib, &f), IP_FRAME_OK);
  ck_assert_uint_eq(f.size, ib);

  char path[] = "/tmp/ip_record_wire_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, image, image_len), (ssize_t)image_len);
  close(fd);
  ip_trace_end e;
  char why[256] = "";
  int rc = ip_trace_end_read(path, &e, why, sizeof why);
  unlink(path);
  ck_assert_msg(rc == 0, "%s", why);
  const Inclprof__Index *ix = e.index->index;
  ck_assert_uint_eq(ix->offset, offset);
  ck_assert_ptr_null(ix->incomplete);
  ck_assert_uint_eq(ix->functions, 3);
  ck_assert_uint_eq(ix->mark_names, 2);
  ck_assert_uint_eq(ix->n_modules, 1);
  ck_assert_str_eq(ix->modules[0]->path, "/usr/bin/prog");
  ck_assert_uint_eq(ix->n_threads, 3);
  const Inclprof__IndexThread *w = ix->threads[0], *m = ix->threads[1], *r = ix->threads[2];
  ck_assert_uint_eq(w->tid, 7);
  ck_assert_str_eq(w->name, "worker");
  ck_assert_str_eq(w->no_transitions, "no counter here");
  ck_assert_uint_eq(w->events, 8);
  ck_assert_uint_eq(w->batches, 2);
  ck_assert_uint_eq(w->batches_lost, 1);
  ck_assert_uint_eq(w->gaps, 2);
  ck_assert(w->alive_at_exit);
  ck_assert_uint_eq(m->tid, 9);
  ck_assert_str_eq(m->name, "main");
  ck_assert_ptr_null(m->no_transitions);
  ck_assert_uint_eq(m->events, 16);
  ck_assert_uint_eq(m->batches, 1);
  ck_assert_uint_eq(m->batches_lost, 0);
  ck_assert_uint_eq(m->gaps, 0);
  ck_assert(!m->alive_at_exit);
  ck_assert_uint_eq(m->kernel_lost, 2); /* its two KEV_LOST records */
  ck_assert_uint_eq(w->kernel_lost, 0);
  ck_assert_uint_eq(r->tid, 7);
  ck_assert_str_eq(r->name, "reused");
  ck_assert_uint_eq(r->events, 1);
  ck_assert_uint_eq(r->kernel_lost, 1); /* its batch flagged kernel_lost */
  ck_assert_uint_eq(e.trailer->trailer->events, 25);
  ip_trace_end_free(&e);
}
END_TEST

int main(void) {
  Suite *s = suite_create("record_wire");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, record_kinds_match_the_proto);
  tcase_add_test(tc, thread_fields_match_the_proto);
  tcase_add_test(tc, snapshot_read_fields_match_the_proto);
  tcase_add_test(tc, tail_fields_match_the_proto);
  tcase_add_test(tc, footer_round_trips);
  tcase_add_test(tc, index_round_trips_through_the_reader);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
