/* event_batch_read.c - the fields of an EventBatch as they lie in its bytes
 * (see include/inclprof/event_batch_read.h). */
#include "event_batch_read.h"

#include "wire_read.h"

/* The bit of a length-delimited field of EventBatch: a packed array. */
static unsigned packed_bit(uint32_t number) {
  switch (number) {
  case IP_TAG_BATCH_DT:
    return IP_BATCH_DT;
  case IP_TAG_BATCH_CODE:
    return IP_BATCH_CODE;
  case IP_TAG_BATCH_KERNEL_DT:
    return IP_BATCH_KERNEL_DT;
  case IP_TAG_BATCH_SAMPLE_ADDR:
    return IP_BATCH_SAMPLE_ADDR;
  case IP_TAG_BATCH_KERNEL_WAKEE:
    return IP_BATCH_KERNEL_WAKEE;
  case IP_TAG_BATCH_CORO_FRAME:
    return IP_BATCH_CORO_FRAME;
  case IP_TAG_BATCH_KERNEL_FUTEX:
    return IP_BATCH_KERNEL_FUTEX;
  case IP_TAG_BATCH_KERNEL_FUTEX_OP:
    return IP_BATCH_KERNEL_FUTEX_OP;
  case IP_TAG_BATCH_POINTER_CALLS:
    return IP_BATCH_POINTER_CALLS;
  default:
    return 0;
  }
}

/* The bit of a varint field of EventBatch, and where its value goes. */
static unsigned varint_bit(ip_batch_fields *f, uint32_t number, uint64_t **to) {
  switch (number) {
  case IP_TAG_BATCH_TID:
    *to = &f->tid;
    return IP_BATCH_TID;
  case IP_TAG_BATCH_SEQ:
    *to = &f->seq;
    return IP_BATCH_SEQ;
  case IP_TAG_BATCH_BASE_TICK:
    *to = &f->base_tick;
    return IP_BATCH_BASE_TICK;
  case IP_TAG_BATCH_KERNEL_BASE:
    *to = &f->kernel_base_tick;
    return IP_BATCH_KERNEL_BASE;
  case IP_TAG_BATCH_KERNEL_LOST:
    *to = &f->kernel_lost;
    return IP_BATCH_KERNEL_LOST;
  default:
    return 0;
  }
}

int ip_batch_fields_read(const uint8_t *p, size_t len, ip_batch_fields *f) {
  const uint8_t *end = p + len;
  *f = (ip_batch_fields){0};
  while (p < end) {
    ip_wire_field w;
    if (!ip_wire_next(&p, end, &w))
      return 0;
    unsigned bit = 0;
    if (w.wire == IP_WIRE_LEN && (bit = packed_bit(w.number)) != 0) {
      if (f->have & bit) { /* a packed array in parts */
        f->have |= IP_BATCH_OTHER;
        continue;
      }
      ip_wire_span *s = bit == IP_BATCH_DT                ? &f->dt
                        : bit == IP_BATCH_CODE            ? &f->code
                        : bit == IP_BATCH_KERNEL_DT       ? &f->kernel_dt
                        : bit == IP_BATCH_SAMPLE_ADDR     ? &f->sample_addr
                        : bit == IP_BATCH_KERNEL_WAKEE    ? &f->kernel_wakee
                        : bit == IP_BATCH_KERNEL_FUTEX    ? &f->kernel_futex
                        : bit == IP_BATCH_KERNEL_FUTEX_OP ? &f->kernel_futex_op
                        : bit == IP_BATCH_POINTER_CALLS   ? &f->pointer_calls
                                                          : &f->coroutine_frame;
      s->p = w.data;
      s->end = w.data + w.value;
    } else if (w.wire == IP_WIRE_VARINT) {
      uint64_t *to = NULL;
      bit = varint_bit(f, w.number, &to);
      if (to)
        *to = w.value;
    }
    f->have |= bit ? bit : IP_BATCH_OTHER;
  }
  return 1;
}

int ip_batch_record_body(const uint8_t *p, size_t len, const uint8_t **body, size_t *body_len) {
  const uint8_t *end = p + len;
  uint64_t key, n;
  if (!ip_wire_varint(&p, end, &key) || key != IP_WIRE_KEY(IP_TAG_RECORD_EVENTS, IP_WIRE_LEN) ||
      !ip_wire_varint(&p, end, &n) || n != (uint64_t)(end - p))
    return 0;
  *body = p;
  *body_len = (size_t)n;
  return 1;
}
