/* trace_frame.c - the trace file's framing: preamble (magic + version) and one
 * frame per Record (varint length, protobuf bytes, little-endian CRC-32).
 * No allocation: callable from the runtime's flush path (even inside a signal
 * handler) and from test generators. */
#include "trace_frame.h"

#include <libdeflate.h>
#include <string.h>

#include "record_wire.h"

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

/* Keys of fields 1 to 15 take one byte. */
static size_t num_len(uint64_t v) { return 1 + ip_varint_len(v); }
static size_t str_len(size_t n) { return 1 + ip_varint_len(n) + n; }

size_t ip_function_frame_sized(const Inclprof__Function *f, ip_function_lens *lens) {
  size_t n = num_len(f->gid);
  n += f->has_module ? num_len(f->module) : 0;
  n += f->has_id ? num_len(f->id) : 0;
  n += f->name ? str_len(lens->name) : 0;
  n += f->pretty ? str_len(lens->pretty) : 0;
  n += f->file ? str_len(lens->file) : 0;
  n += f->has_line ? num_len(f->line) : 0;
  n += f->has_size ? num_len(f->size) : 0;
  n += f->has_flags ? num_len(f->flags) : 0;
  n += f->has_addr ? num_len(f->addr) : 0;
  lens->body = n;
  size_t record = 1 + ip_varint_len(n) + n; /* Record.function */
  return ip_varint_len(record) + record + IP_FRAME_CRC_LEN;
}

size_t ip_function_frame_size(const Inclprof__Function *f, ip_function_lens *lens) {
  lens->name = f->name ? strlen(f->name) : 0;
  lens->pretty = f->pretty ? strlen(f->pretty) : 0;
  lens->file = f->file ? strlen(f->file) : 0;
  return ip_function_frame_sized(f, lens);
}

static uint8_t *put_num(uint8_t *o, unsigned field, uint64_t v) {
  *o++ = (uint8_t)IP_WIRE_KEY(field, IP_WIRE_VARINT);
  return ip_put_varint(o, v);
}

static uint8_t *put_str(uint8_t *o, unsigned field, const char *s, size_t n) {
  *o++ = (uint8_t)IP_WIRE_KEY(field, IP_WIRE_LEN);
  o = ip_put_varint(o, n);
  memcpy(o, s, n);
  return o + n;
}

size_t ip_function_frame_put(const Inclprof__Function *f, const ip_function_lens *lens,
                             uint8_t *out) {
  size_t record = 1 + ip_varint_len(lens->body) + lens->body;
  uint8_t *o = ip_put_varint(out, record), *rec = o;
  *o++ = (uint8_t)IP_WIRE_KEY(IP_TAG_RECORD_FUNCTION, IP_WIRE_LEN);
  o = ip_put_varint(o, lens->body);
  o = put_num(o, IP_TAG_FUNCTION_GID, f->gid);
  if (f->has_module)
    o = put_num(o, IP_TAG_FUNCTION_MODULE, f->module);
  if (f->has_id)
    o = put_num(o, IP_TAG_FUNCTION_ID, f->id);
  if (f->name)
    o = put_str(o, IP_TAG_FUNCTION_NAME, f->name, lens->name);
  if (f->pretty)
    o = put_str(o, IP_TAG_FUNCTION_PRETTY, f->pretty, lens->pretty);
  if (f->file)
    o = put_str(o, IP_TAG_FUNCTION_FILE, f->file, lens->file);
  if (f->has_line)
    o = put_num(o, IP_TAG_FUNCTION_LINE, f->line);
  if (f->has_size)
    o = put_num(o, IP_TAG_FUNCTION_SIZE, f->size);
  if (f->has_flags)
    o = put_num(o, IP_TAG_FUNCTION_FLAGS, f->flags);
  if (f->has_addr)
    o = put_num(o, IP_TAG_FUNCTION_ADDR, f->addr);
  return (size_t)(ip_frame_seal(rec, (size_t)(o - rec)) - out);
}

/* A Function record the hand encoder writes: one without unknown fields. */
static int by_hand(const Inclprof__Record *rec) {
  return rec->body_case == INCLPROF__RECORD__BODY_FUNCTION && rec->function &&
         !rec->base.n_unknown_fields && !rec->function->base.n_unknown_fields;
}

size_t ip_frame_max_size(const Inclprof__Record *rec) {
  ip_function_lens lens;
  if (by_hand(rec))
    return ip_function_frame_size(rec->function, &lens);
  size_t body = inclprof__record__get_packed_size(rec);
  return ip_varint_len(body) + body + IP_FRAME_CRC_LEN;
}

size_t ip_frame_encode(const Inclprof__Record *rec, uint8_t *out) {
  ip_function_lens lens;
  if (by_hand(rec)) {
    ip_function_frame_size(rec->function, &lens);
    return ip_function_frame_put(rec->function, &lens, out);
  }
  size_t body = inclprof__record__get_packed_size(rec);
  size_t n = (size_t)(ip_put_varint(out, body) - out);
  size_t packed = inclprof__record__pack(rec, out + n);
  return (size_t)(ip_frame_seal(out + n, packed) - out);
}
