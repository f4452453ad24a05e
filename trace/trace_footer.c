/* trace_footer.c - the Footer frame that ends a trace file with an index
 * (see include/inclprof/trace_footer.h), encoded and decoded by its field
 * numbers (record_wire.h) through the one frame writer and reader. */
#include "trace_footer.h"

#include "frame_read.h"
#include "record_wire.h"
#include "trace_frame.h"
#include "wire_read.h"

#define FOOTER_RECORD_LEN (IP_FOOTER_FRAME_LEN - 1 - IP_FRAME_CRC_LEN)

_Static_assert(IP_WIRE_KEY(IP_TAG_RECORD_FOOTER, IP_WIRE_LEN) < 0x80 &&
                   IP_WIRE_KEY(IP_TAG_FOOTER_TRAILER_BYTES, IP_WIRE_FIXED32) < 0x80,
               "the Footer's keys take one byte each: its frame has a fixed size");

static uint8_t *put_fixed32(uint8_t *o, uint32_t field, uint32_t v) {
  *o++ = (uint8_t)IP_WIRE_KEY(field, IP_WIRE_FIXED32);
  for (int i = 0; i < 4; i++)
    *o++ = (uint8_t)(v >> (8 * i));
  return o;
}

void ip_footer_encode(uint8_t out[IP_FOOTER_FRAME_LEN], uint32_t index_bytes,
                      uint32_t trailer_bytes) {
  uint8_t *o = ip_put_varint(out, FOOTER_RECORD_LEN), *record = o;
  *o++ = (uint8_t)IP_WIRE_KEY(IP_TAG_RECORD_FOOTER, IP_WIRE_LEN);
  *o++ = (uint8_t)(FOOTER_RECORD_LEN - 2);
  o = put_fixed32(o, IP_TAG_FOOTER_INDEX_BYTES, index_bytes);
  o = put_fixed32(o, IP_TAG_FOOTER_TRAILER_BYTES, trailer_bytes);
  ip_frame_seal(record, (size_t)(o - record));
}

int ip_footer_decode(const uint8_t *p, uint32_t *index_bytes, uint32_t *trailer_bytes) {
  ip_frame_view f;
  ip_wire_field body, field;
  if (ip_frame_read(p, IP_FOOTER_FRAME_LEN, &f) != IP_FRAME_OK || f.size != IP_FOOTER_FRAME_LEN)
    return 0;
  const uint8_t *q = f.record, *end = f.record + f.record_len;
  if (!ip_wire_next(&q, end, &body) || q != end || body.number != IP_TAG_RECORD_FOOTER ||
      body.wire != IP_WIRE_LEN)
    return 0;
  unsigned seen = 0;
  for (q = body.data, end = q + body.value; q < end;) {
    if (!ip_wire_next(&q, end, &field) || field.wire != IP_WIRE_FIXED32)
      return 0;
    if (field.number == IP_TAG_FOOTER_INDEX_BYTES) {
      *index_bytes = (uint32_t)field.value;
      seen |= 1;
    } else if (field.number == IP_TAG_FOOTER_TRAILER_BYTES) {
      *trailer_bytes = (uint32_t)field.value;
      seen |= 2;
    }
  }
  return seen == 3;
}
