/* trace_frame.c - the trace file's framing: preamble (magic + version) and one
 * frame per Record (varint length, protobuf bytes, little-endian CRC-32).
 * No allocation: callable from the runtime's flush path (even inside a signal
 * handler) and from test generators. */
#include "trace_frame.h"

#include <libdeflate.h>
#include <string.h>

uint32_t ip_frame_crc(const uint8_t *p, size_t n) { return libdeflate_crc32(0, p, n); }

uint8_t *ip_frame_seal(uint8_t *record, size_t len) {
  uint32_t crc = ip_frame_crc(record, len);
  uint8_t *e = record + len;
  for (unsigned i = 0; i < IP_FRAME_CRC_LEN; i++)
    *e++ = (uint8_t)(crc >> (8 * i));
  return e;
}

void ip_frame_preamble(uint8_t out[IP_TRACE_PREAMBLE_LEN]) {
  memcpy(out, IP_TRACE_MAGIC, IP_TRACE_MAGIC_LEN);
  out[8] = (uint8_t)(IP_FORMAT_MAJOR & 0xff);
  out[9] = (uint8_t)(IP_FORMAT_MAJOR >> 8);
  out[10] = (uint8_t)(IP_FORMAT_MINOR & 0xff);
  out[11] = (uint8_t)(IP_FORMAT_MINOR >> 8);
}

size_t ip_frame_max_size(const Inclprof__Record *rec) {
  size_t body = inclprof__record__get_packed_size(rec);
  return ip_varint_len(body) + body + IP_FRAME_CRC_LEN;
}

size_t ip_frame_encode(const Inclprof__Record *rec, uint8_t *out) {
  size_t body = inclprof__record__get_packed_size(rec);
  size_t n = (size_t)(ip_put_varint(out, body) - out);
  size_t packed = inclprof__record__pack(rec, out + n);
  return (size_t)(ip_frame_seal(out + n, packed) - out);
}
