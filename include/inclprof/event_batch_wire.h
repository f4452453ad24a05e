/* event_batch_wire.h - the protobuf wire layout of Record.events (an
 * EventBatch, proto/inclprof.proto), which the runtime encodes by hand
 * (runtime/produce/flush.c) and which the converter's decoder and the runtime's ring
 * policy read through event_batch_read.h.  The field numbers are named here once;
 * tests/unit/test_event_batch_wire.c checks them against the generated
 * protobuf-c descriptors. */
#ifndef INCLPROF_EVENT_BATCH_WIRE_H
#define INCLPROF_EVENT_BATCH_WIRE_H

/* Field numbers. */
enum {
  IP_TAG_RECORD_EVENTS = 6,          /* Record.events: the EventBatch */
  IP_TAG_BATCH_TID = 1,              /* EventBatch.tid, varint */
  IP_TAG_BATCH_SEQ = 2,              /* EventBatch.seq, varint */
  IP_TAG_BATCH_BASE_TICK = 3,        /* EventBatch.base_tick, varint */
  IP_TAG_BATCH_DT = 4,               /* EventBatch.dt, packed varints */
  IP_TAG_BATCH_CODE = 5,             /* EventBatch.code, packed varints */
  IP_TAG_BATCH_KERNEL_DT = 6,        /* EventBatch.kernel_dt, packed varints */
  IP_TAG_BATCH_KERNEL_BASE = 7,      /* EventBatch.kernel_base_tick, varint */
  IP_TAG_BATCH_KERNEL_LOST = 8,      /* EventBatch.kernel_lost, varint */
  IP_TAG_BATCH_SAMPLE_ADDR = 9,      /* EventBatch.sample_addr, packed varints */
  IP_TAG_BATCH_KERNEL_WAKEE = 10,    /* EventBatch.kernel_wakee, packed varints */
  IP_TAG_BATCH_CORO_FRAME = 11,      /* EventBatch.coroutine_frame, packed varints (pairs) */
  IP_TAG_BATCH_KERNEL_FUTEX = 12,    /* EventBatch.kernel_futex, packed varints */
  IP_TAG_BATCH_KERNEL_FUTEX_OP = 13, /* EventBatch.kernel_futex_op, packed varints */
  IP_TAG_BATCH_POINTER_CALLS = 14    /* EventBatch.pointer_calls, packed varints */
};

/* Wire types. */
enum { IP_WIRE_VARINT = 0, IP_WIRE_FIXED64 = 1, IP_WIRE_LEN = 2, IP_WIRE_FIXED32 = 5 };

/* A field's key: field number << 3 | wire type (below 128 for every field
 * above: one byte as a varint). */
#define IP_WIRE_KEY(field, wire) ((unsigned)(field) << 3 | (unsigned)(wire))

#endif
