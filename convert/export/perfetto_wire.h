/* export/perfetto_wire.h - the protobuf wire format as the Perfetto export
 * writes its slice packets by hand (export/perfetto.c): varints, tags and
 * length-delimited fields into memory, and a buffered output of whole
 * Trace.packet fields, so a packet costs no library call and no stdio call
 * of its own. */
#ifndef INCLPROF_EXPORT_PERFETTO_WIRE_H
#define INCLPROF_EXPORT_PERFETTO_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The bytes of v as a varint: 7 bits a byte, by the count of its leading
 * zero bits. */
static inline size_t ip_pb_varint_len(uint64_t v) {
  static const uint8_t by_zeros[64] = {10, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 7,
                                       7,  7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 6, 5, 5, 5,
                                       5,  5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3,
                                       3,  3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1};
  return by_zeros[__builtin_clzll(v | 1)];
}

/* v as a varint at p; the byte after it. */
static inline uint8_t *ip_pb_varint(uint8_t *p, uint64_t v) {
  for (; v >= 0x80; v >>= 7)
    *p++ = (uint8_t)(v | 0x80);
  *p++ = (uint8_t)v;
  return p;
}

/* The key of field number `field` of wire type `wire` (0 varint, 2 bytes). */
static inline uint8_t *ip_pb_tag(uint8_t *p, uint32_t field, unsigned wire) {
  return ip_pb_varint(p, (uint64_t)field << 3 | wire);
}

static inline uint8_t *ip_pb_varint_field(uint8_t *p, uint32_t field, uint64_t v) {
  return ip_pb_varint(ip_pb_tag(p, field, 0), v);
}

/* A length-delimited field (a string, a nested message) of n bytes at src. */
static inline uint8_t *ip_pb_bytes_field(uint8_t *p, uint32_t field, const void *src, size_t n) {
  p = ip_pb_varint(ip_pb_tag(p, field, 2), n);
  memcpy(p, src, n);
  return p + n;
}

/* Bytes on their way to a stream, written in large pieces. */
typedef struct ip_pb_out {
  FILE *f;
  uint8_t *buf;
  size_t len, cap;
} ip_pb_out;

void ip_pb_out_init(ip_pb_out *o, FILE *f);
/* ip_pb_out_reserve when the buffer is short. */
uint8_t *ip_pb_out_reserve_slow(ip_pb_out *o, size_t n);

/* Room for at least n bytes at the end of the buffer (written out first
 * when short); ip_pb_out_commit then takes the bytes up to end. */
static inline uint8_t *ip_pb_out_reserve(ip_pb_out *o, size_t n) {
  if (__builtin_expect(o->cap - o->len < n, 0))
    return ip_pb_out_reserve_slow(o, n);
  return o->buf + o->len;
}
static inline void ip_pb_out_commit(ip_pb_out *o, const uint8_t *end) {
  o->len = (size_t)(end - o->buf);
}
/* A Trace.packet field holding the n bytes of a packed TracePacket. */
void ip_pb_out_packet(ip_pb_out *o, const uint8_t *packet, size_t n);
/* Writes what is buffered and frees the buffer. */
void ip_pb_out_flush(ip_pb_out *o);

#endif
