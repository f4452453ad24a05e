/* frame_read.c - the one reader of the trace file's frames (see
 * include/inclprof/frame_read.h): a frame's length, its bounds, its CRC, and
 * the search for the next frame after damage. */
#include "frame_read.h"

#include "trace_frame.h"
#include "wire_read.h"

const char *ip_frame_fault_text(ip_frame_fault fault) {
  switch (fault) {
  case IP_FRAME_OK:
    return "a whole frame";
  case IP_FRAME_CUT_LENGTH:
    return "truncated frame (cut inside the length)";
  case IP_FRAME_LONG_LENGTH:
    return "bad frame length (varint too long)";
  case IP_FRAME_HUGE:
    return "bad frame length (larger than 64 MiB)";
  case IP_FRAME_CUT_RECORD:
    return "truncated frame (file ends inside a record)";
  case IP_FRAME_BAD_CRC:
    return "crc mismatch (corrupted record)";
  }
  return "damaged frame";
}

ip_frame_fault ip_frame_length(const uint8_t *p, size_t n, uint64_t *record_len, size_t *head_len) {
  const uint8_t *q = p;
  if (!ip_wire_varint(&q, p + n, record_len)) /* cut short, or past 10 bytes */
    return n >= IP_FRAME_HEAD_MAX ? IP_FRAME_LONG_LENGTH : IP_FRAME_CUT_LENGTH;
  if (*record_len > IP_FRAME_MAX_RECORD)
    return IP_FRAME_HUGE;
  *head_len = (size_t)(q - p);
  return IP_FRAME_OK;
}

ip_frame_fault ip_frame_next(const uint8_t *p, size_t n, ip_frame_view *f) {
  uint64_t len;
  size_t head;
  ip_frame_fault fault = ip_frame_length(p, n, &len, &head);
  if (fault != IP_FRAME_OK)
    return fault;
  if (len + IP_FRAME_CRC_LEN > n - head)
    return IP_FRAME_CUT_RECORD;
  f->record = p + head;
  f->record_len = (size_t)len;
  f->size = head + (size_t)len + IP_FRAME_CRC_LEN;
  return IP_FRAME_OK;
}

int ip_frame_crc_ok(const uint8_t *record, size_t len) {
  const uint8_t *c = record + len;
  uint32_t want =
      (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
  return ip_frame_crc(record, len) == want;
}

ip_frame_fault ip_frame_read(const uint8_t *p, size_t n, ip_frame_view *f) {
  ip_frame_fault fault = ip_frame_next(p, n, f);
  if (fault == IP_FRAME_OK && !ip_frame_crc_ok(f->record, f->record_len))
    return IP_FRAME_BAD_CRC;
  return fault;
}

/* A whole frame at p[0..n) whose record starts with a Record body field (a
 * length-delimited field of a number above 0, two bytes at least): its size,
 * or 0. */
static size_t plausible(const uint8_t *p, size_t n) {
  ip_frame_view f;
  if (ip_frame_next(p, n, &f) != IP_FRAME_OK || f.record_len < 2 ||
      (f.record[0] & 7) != IP_WIRE_LEN || (f.record[0] >> 3) == 0 ||
      !ip_frame_crc_ok(f.record, f.record_len))
    return 0;
  return f.size;
}

size_t ip_frame_find(const uint8_t *p, size_t n, size_t scan_to, int at_end) {
  for (size_t i = 0; i < scan_to; i++) {
    size_t size = plausible(p + i, n - i);
    if (size && (i + size == n ? at_end : plausible(p + i + size, n - i - size) != 0))
      return i;
  }
  return scan_to;
}
