/* trace_frame.h - encoding of the trace file's framing (see proto/inclprof.proto):
 * the 12-byte file preamble (magic + version) and one frame per Record
 * (varint length, protobuf bytes, CRC-32), and the one CRC-32 every writer
 * and reader of frames uses.  Pure functions on caller-provided memory, no
 * allocation: usable from the runtime's flush path and from test generators
 * alike.  Reading frames: frame_read.h. */
#ifndef INCLPROF_TRACE_FRAME_H
#define INCLPROF_TRACE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "inclprof.pb-c.h"

#define IP_TRACE_MAGIC        "INCLPROF"
#define IP_TRACE_MAGIC_LEN    8
#define IP_TRACE_PREAMBLE_LEN 12
#define IP_FORMAT_MAJOR       2u /* 2: function tables may live in shared table files */
#define IP_FORMAT_MINOR                                                                            \
  6u /* 1 wakes, 2 coroutines, 3 aggregates, 4 futexes, 5 landings, 6 pointer calls */
#define IP_FORMAT_MAJOR_OLDEST 1u /* the oldest major version readers still read */
#define IP_FRAME_CRC_LEN       4u /* the CRC after a frame's record, little-endian */

/* Bytes of v as a protobuf varint: 1 + floor(log2(v) / 7), without a loop
 * (9 / 64 is close enough to 1 / 7 for every bit count up to 64). */
static inline size_t ip_varint_len(uint64_t v) {
  return (size_t)((63 - __builtin_clzll(v | 1)) * 9 + 73) / 64;
}

/* Writes v as a protobuf varint at out; returns the byte after it. */
static inline uint8_t *ip_put_varint(uint8_t *out, uint64_t v) {
  while (v >= 0x80) {
    *out++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *out++ = (uint8_t)v;
  return out;
}

/* A Record{function: f} frame, encoded by hand: the bytes protobuf-c's
 * generic packer gives (fields in number order; an optional number when its
 * has_ flag is set, an optional string when its pointer is, even to ""),
 * at a sixth of its cost, which a table of 100 000 functions paid in every
 * process that wrote it.  ip_function_frame_size measures f's strings into
 * *lens, ip_function_frame_sized takes their lengths from *lens (a caller
 * that measured them already); both note the Function's bytes there and
 * return the frame's, which ip_function_frame_put then writes (no string
 * is measured twice).  ip_frame_max_size and ip_frame_encode take this path
 * for every Function record without unknown fields. */
typedef struct {
  size_t body;               /* the Function's bytes */
  size_t name, pretty, file; /* each string's length (0 when absent) */
} ip_function_lens;
size_t ip_function_frame_size(const Inclprof__Function *f, ip_function_lens *lens);
size_t ip_function_frame_sized(const Inclprof__Function *f, ip_function_lens *lens);
size_t ip_function_frame_put(const Inclprof__Function *f, const ip_function_lens *lens,
                             uint8_t *out);

/* zlib's CRC-32 of p[0..n), computed by libdeflate (carry-less
 * multiplication where the CPU has it: 0.3 instructions per byte of a
 * batch against 3.9 for zlib's table-driven crc32, and no dearer on the
 * 12 bytes of a Footer). */
uint32_t ip_frame_crc(const uint8_t *p, size_t n);

/* Writes the CRC of record[0..len) in the IP_FRAME_CRC_LEN bytes after it;
 * returns the byte after them. */
uint8_t *ip_frame_seal(uint8_t *record, size_t len);

/* Writes the 12-byte preamble into out. */
void ip_frame_preamble(uint8_t out[IP_TRACE_PREAMBLE_LEN]);

/* Upper bound of the encoded size of a frame holding rec. */
size_t ip_frame_max_size(const Inclprof__Record *rec);

/* Encodes rec as one frame into out (at least ip_frame_max_size bytes);
 * returns the number of bytes written. */
size_t ip_frame_encode(const Inclprof__Record *rec, uint8_t *out);

#endif
