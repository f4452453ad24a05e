/* trace_frame.c - the trace file's framing: preamble (magic + version) and one
 * frame per Record (varint length, protobuf bytes, little-endian crc32).
 * No allocation: callable from the runtime's flush path (even inside a signal
 * handler) and from test generators. */
#include "trace_frame.h"

#include <string.h>
#include <zlib.h>

void ip_frame_preamble(uint8_t out[IP_TRACE_PREAMBLE_LEN]) {
  memcpy(out, IP_TRACE_MAGIC, IP_TRACE_MAGIC_LEN);
  out[8] = (uint8_t)(IP_FORMAT_MAJOR & 0xff);
  out[9] = (uint8_t)(IP_FORMAT_MAJOR >> 8);
  out[10] = (uint8_t)(IP_FORMAT_MINOR & 0xff);
  out[11] = (uint8_t)(IP_FORMAT_MINOR >> 8);
}

size_t ip_frame_max_size(const Inclprof__Record *rec) {
  size_t body = inclprof__record__get_packed_size(rec);
  return ip_varint_len(body) + body + 4;
}

size_t ip_frame_encode(const Inclprof__Record *rec, uint8_t *out) {
  size_t body = inclprof__record__get_packed_size(rec);
  size_t n = (size_t)(ip_put_varint(out, body) - out);
  size_t packed = inclprof__record__pack(rec, out + n);
  uint32_t crc = (uint32_t)crc32(0L, out + n, (uInt)packed);
  n += packed;
  for (int i = 0; i < 4; i++)
    out[n++] = (uint8_t)(crc >> (8 * i));
  return n;
}
