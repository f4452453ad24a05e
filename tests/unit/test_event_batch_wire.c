/* test_event_batch_wire.c - the field numbers and wire types that the
 * runtime's hand-written EventBatch encoder and the converter's decoder share
 * (event_batch_wire.h) are those of proto/inclprof.proto, looked up by name
 * in the protobuf-c descriptors generated from it. */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "event_batch_wire.h"
#include "inclprof.pb-c.h"

static const ProtobufCFieldDescriptor *field(const ProtobufCMessageDescriptor *m,
                                             const char *name) {
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(m, name);
  ck_assert_msg(f != NULL, "%s has no field %s", m->name, name);
  return f;
}

START_TEST(field_numbers_match_the_proto) {
  const ProtobufCMessageDescriptor *b = &inclprof__event_batch__descriptor;
  ck_assert_uint_eq(field(&inclprof__record__descriptor, "events")->id, IP_TAG_RECORD_EVENTS);
  ck_assert_uint_eq(field(b, "tid")->id, IP_TAG_BATCH_TID);
  ck_assert_uint_eq(field(b, "seq")->id, IP_TAG_BATCH_SEQ);
  ck_assert_uint_eq(field(b, "base_tick")->id, IP_TAG_BATCH_BASE_TICK);
  ck_assert_uint_eq(field(b, "dt")->id, IP_TAG_BATCH_DT);
  ck_assert_uint_eq(field(b, "code")->id, IP_TAG_BATCH_CODE);
  ck_assert_uint_eq(field(b, "kernel_dt")->id, IP_TAG_BATCH_KERNEL_DT);
  ck_assert_uint_eq(field(b, "kernel_base_tick")->id, IP_TAG_BATCH_KERNEL_BASE);
  ck_assert_uint_eq(field(b, "kernel_lost")->id, IP_TAG_BATCH_KERNEL_LOST);
  ck_assert_uint_eq(field(b, "sample_addr")->id, IP_TAG_BATCH_SAMPLE_ADDR);
  ck_assert_uint_eq(field(b, "kernel_wakee")->id, IP_TAG_BATCH_KERNEL_WAKEE);
  ck_assert_uint_eq(field(b, "coroutine_frame")->id, IP_TAG_BATCH_CORO_FRAME);
  ck_assert(field(b, "coroutine_frame")->flags & PROTOBUF_C_FIELD_FLAG_PACKED);
  ck_assert_uint_eq(field(b, "kernel_futex")->id, IP_TAG_BATCH_KERNEL_FUTEX);
  ck_assert_uint_eq(field(b, "kernel_futex_op")->id, IP_TAG_BATCH_KERNEL_FUTEX_OP);
  ck_assert(field(b, "kernel_futex")->flags & PROTOBUF_C_FIELD_FLAG_PACKED);
  ck_assert(field(b, "kernel_futex_op")->flags & PROTOBUF_C_FIELD_FLAG_PACKED);
  ck_assert_uint_eq(field(b, "pointer_calls")->id, IP_TAG_BATCH_POINTER_CALLS);
  ck_assert(field(b, "pointer_calls")->flags & PROTOBUF_C_FIELD_FLAG_PACKED);
  ck_assert_uint_eq(b->n_fields, 14); /* no field that the encoder leaves out */
}
END_TEST

START_TEST(wire_types_match_the_proto) {
  const ProtobufCMessageDescriptor *b = &inclprof__event_batch__descriptor;
  ck_assert_int_eq(field(&inclprof__record__descriptor, "events")->type, PROTOBUF_C_TYPE_MESSAGE);
  ck_assert_int_eq(field(b, "tid")->type, PROTOBUF_C_TYPE_UINT32);
  ck_assert_int_eq(field(b, "seq")->type, PROTOBUF_C_TYPE_UINT64);
  ck_assert_int_eq(field(b, "base_tick")->type, PROTOBUF_C_TYPE_UINT64);
  /* Packed repeated fields are length-delimited on the wire. */
  ck_assert(field(b, "dt")->flags & PROTOBUF_C_FIELD_FLAG_PACKED);
  ck_assert(field(b, "code")->flags & PROTOBUF_C_FIELD_FLAG_PACKED);
  ck_assert_uint_eq(IP_WIRE_KEY(IP_TAG_BATCH_DT, IP_WIRE_LEN), 0x22);
  ck_assert_uint_eq(IP_WIRE_KEY(IP_TAG_RECORD_EVENTS, IP_WIRE_LEN), 0x32);
}
END_TEST

int main(void) {
  Suite *s = suite_create("event_batch_wire");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, field_numbers_match_the_proto);
  tcase_add_test(tc, wire_types_match_the_proto);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
