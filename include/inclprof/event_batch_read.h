/* event_batch_read.h - the fields of a Record{events: EventBatch} as they lie
 * in its bytes (proto/inclprof.proto, field numbers in event_batch_wire.h):
 * one walk over the record, the packed arrays left as byte ranges for the
 * caller to decode.  No allocation.  The converter decodes batches from it
 * (convert/read/batch_decode.c), the runtime's ring policy follows its
 * threads' stacks from it (runtime/sink/trace_ring.c). */
#ifndef INCLPROF_EVENT_BATCH_READ_H
#define INCLPROF_EVENT_BATCH_READ_H

#include <stddef.h>
#include <stdint.h>

/* A byte range: a packed array's varints. */
typedef struct ip_wire_span {
  const uint8_t *p, *end;
} ip_wire_span;

/* What IP_BATCH_* bits say a batch holds. */
enum {
  IP_BATCH_TID = 1,
  IP_BATCH_SEQ = 2,
  IP_BATCH_BASE_TICK = 4,
  IP_BATCH_DT = 8,
  IP_BATCH_CODE = 16,
  IP_BATCH_KERNEL_DT = 32,
  IP_BATCH_KERNEL_BASE = 64,
  IP_BATCH_KERNEL_LOST = 128,
  IP_BATCH_SAMPLE_ADDR = 256,
  IP_BATCH_KERNEL_WAKEE = 512,
  IP_BATCH_CORO_FRAME = 2048,
  IP_BATCH_KERNEL_FUTEX = 4096,
  IP_BATCH_KERNEL_FUTEX_OP = 8192,
  IP_BATCH_POINTER_CALLS = 16384,
  /* Fields outside the known shape: a field number or wire type
   * EventBatch does not define, or a packed array given in parts. */
  IP_BATCH_OTHER = 1024
};

typedef struct ip_batch_fields {
  unsigned have; /* IP_BATCH_* bits */
  uint64_t tid, seq, base_tick, kernel_base_tick,
      kernel_lost; /* as read (tid may exceed 32 bits) */
  ip_wire_span dt, code, kernel_dt, sample_addr, kernel_wakee, coroutine_frame, kernel_futex,
      kernel_futex_op, pointer_calls; /* empty when absent */
} ip_batch_fields;

/* Walks the EventBatch message p[0..len) into *f; 0 when it is malformed (a
 * cut varint or length).  Fields of other numbers are skipped, with
 * IP_BATCH_OTHER set; of a packed array given in parts, the first part is
 * kept. */
int ip_batch_fields_read(const uint8_t *p, size_t len, ip_batch_fields *f);

/* The EventBatch inside the Record bytes p[0..len) when the record is exactly
 * Record{events} and nothing after it: 1 with *body and *body_len set, else 0. */
int ip_batch_record_body(const uint8_t *p, size_t len, const uint8_t **body, size_t *body_len);

#endif
