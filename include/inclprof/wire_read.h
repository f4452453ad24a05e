/* wire_read.h - reading the protobuf wire format by hand: varints and the
 * fields of a message, on caller-provided bytes, no allocation.  The
 * converter's batch decoder (convert/read/batch_decode.c) and the runtime's
 * ring policy (runtime/sink/trace_ring.c) read with these, through
 * event_batch_read.h for the EventBatch. */
#ifndef INCLPROF_WIRE_READ_H
#define INCLPROF_WIRE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "event_batch_wire.h"

/* Reads a varint at *p (< end) into *v and moves *p past it; 0 when it is
 * cut short or longer than 10 bytes (then *p stays). */
static inline int ip_wire_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  const uint8_t *q = *p;
  if (q < end && *q < 0x80) { /* the common case: one byte */
    *v = *q;
    *p = q + 1;
    return 1;
  }
  uint64_t x = 0;
  for (int shift = 0; shift < 70 && q < end; shift += 7) {
    uint8_t c = *q++;
    x |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) {
      *v = x;
      *p = q;
      return 1;
    }
  }
  return 0;
}

/* One field of a message: its number and wire type, and its value (varint,
 * fixed) or its bytes (length-delimited: data[0..len)). */
typedef struct ip_wire_field {
  uint32_t number;
  uint32_t wire;
  uint64_t value; /* a varint's or fixed field's value; a length-delimited field's length */
  const uint8_t *data;
} ip_wire_field;

/* Reads the field at *p (< end) and moves *p past it; 0 when it is
 * malformed or of a wire type that is not used any more (groups). */
static inline int ip_wire_next(const uint8_t **p, const uint8_t *end, ip_wire_field *f) {
  uint64_t key;
  const uint8_t *q = *p;
  if (!ip_wire_varint(&q, end, &key) || key >> 3 > UINT32_MAX)
    return 0;
  f->number = (uint32_t)(key >> 3);
  f->wire = (uint32_t)(key & 7);
  f->data = NULL;
  switch (f->wire) {
  case IP_WIRE_VARINT:
    if (!ip_wire_varint(&q, end, &f->value))
      return 0;
    break;
  case IP_WIRE_LEN:
    if (!ip_wire_varint(&q, end, &f->value) || f->value > (uint64_t)(end - q))
      return 0;
    f->data = q;
    q += f->value;
    break;
  case IP_WIRE_FIXED64:
  case IP_WIRE_FIXED32: {
    size_t n = f->wire == IP_WIRE_FIXED64 ? 8 : 4;
    if ((size_t)(end - q) < n)
      return 0;
    f->value = 0;
    for (size_t i = 0; i < n; i++)
      f->value |= (uint64_t)q[i] << (8 * i);
    q += n;
    break;
  }
  default:
    return 0;
  }
  *p = q;
  return 1;
}

#endif
