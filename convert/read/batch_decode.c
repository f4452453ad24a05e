/* read/batch_decode.c - one-pass EventBatch decoding (see read/batch_decode.h). */
#include "read/batch_decode.h"

#include "event_batch_read.h"
#include "wire_read.h"

#include <stdlib.h>
#include <string.h>

/* Makes *arr hold at least `most` elements of `size` bytes; 0 if out of memory. */
static int reserve(void **arr, size_t *cap, size_t most, size_t size) {
  if (most <= *cap)
    return 1;
  void *a = realloc(*arr, most * size);
  if (!a)
    return 0;
  *arr = a;
  *cap = most;
  return 1;
}

/* The varint at p, whose next 10 bytes can be read, into *v: the byte after
 * it, or NULL when it is longer than 10 bytes.  Unrolled for the short
 * varints a batch holds (its deltas and codes take 1 to 4 bytes, mostly 1
 * or 2 in no order a branch could predict). */
static inline const uint8_t *varint_at(const uint8_t *p, uint64_t *v) {
  uint64_t x = p[0], b = p[1];
  if (!(x & b & 0x80)) { /* one byte, or two: without a branch between them */
    uint64_t more = x >> 7;
    *v = (x & 0x7f) | (b << 7 & (0 - more));
    return p + 1 + more;
  }
  x = (x & 0x7f) | b << 7;
  b = p[2];
  x = (x & 0x3fff) | b << 14;
  if (b < 0x80) {
    *v = x;
    return p + 3;
  }
  b = p[3];
  x = (x & 0x1fffff) | b << 21;
  if (b < 0x80) {
    *v = x;
    return p + 4;
  }
  return ip_wire_varint(&p, p + 10, v) ? p : NULL;
}

/* Decodes the packed varints p[0..end) into arr (room for one element per
 * byte: a varint has at least one); returns the count, or -1 when malformed
 * (protobuf-c then decides) - also when a value does not fit 32 bits
 * (narrow arrays). */
static long packed_u64(const uint8_t *p, const uint8_t *end, uint64_t *arr) {
  size_t n = 0;
  while (end - p >= 10) /* no varint read here runs past end */
    if (!(p = varint_at(p, &arr[n++])))
      return -1;
  while (p < end) {
    if (!ip_wire_varint(&p, end, &arr[n]))
      return -1;
    n++;
  }
  return (long)n;
}

static long packed_u32(const uint8_t *p, const uint8_t *end, uint32_t *arr) {
  size_t n = 0;
  uint64_t v;
  while (end - p >= 10) {
    if (!(p = varint_at(p, &v)) || v > UINT32_MAX)
      return -1;
    arr[n++] = (uint32_t)v;
  }
  while (p < end) {
    if (!ip_wire_varint(&p, end, &v) || v > UINT32_MAX)
      return -1;
    arr[n++] = (uint32_t)v;
  }
  return (long)n;
}

void ip_batch_buf_init(ip_batch_buf *b) {
  inclprof__record__init(&b->rec);
  inclprof__event_batch__init(&b->batch);
  b->cap_dt = b->cap_code = b->cap_kernel = b->cap_sample_addr = b->cap_kernel_wakee =
      b->cap_coroutine_frame = b->cap_kernel_futex = b->cap_kernel_futex_op = b->cap_pointer_calls =
          0;
}

void ip_batch_buf_free(ip_batch_buf *b) {
  free(b->batch.dt);
  free(b->batch.code);
  free(b->batch.kernel_dt);
  free(b->batch.sample_addr);
  free(b->batch.kernel_wakee);
  free(b->batch.kernel_futex);
  free(b->batch.kernel_futex_op);
  free(b->batch.coroutine_frame);
  free(b->batch.pointer_calls);
  ip_batch_buf_init(b);
}

/* Bit i set when byte i of p[0..64) continues a varint (its high bit): eight
 * bytes at a time, in plain C: as fast as an SSE2 movemask in make
 * bench-convert's paired runs. */
static inline uint64_t continuation_mask(const uint8_t *p) {
  uint64_t m = 0;
  for (int k = 0; k < 8; k++) {
    uint64_t w;
    memcpy(&w, p + 8 * k, sizeof w);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    /* the eight high bits gathered into one byte, byte j's at bit j */
    m |= (((w & 0x8080808080808080ull) >> 7) * 0x0102040810204080ull) >> 56 << (8 * k);
  }
  return m;
}

/* Whether the packed varints p[0..end) are whole and none is longer than
 * 10 bytes, 64 bytes at a time: what protobuf-c requires of them. */
static int packed_ok(const uint8_t *p, const uint8_t *end) {
  size_t left = (size_t)(end - p);
  if (left && end[-1] >= 0x80)
    return 0;
  unsigned run = 0; /* continuation bytes in a row just before p */
  for (; left >= 64; p += 64, left -= 64) {
    uint64_t m = continuation_mask(p);
    if (!m) {
      run = 0;
      continue;
    }
    unsigned head = m == ~0ull ? 64 : (unsigned)__builtin_ctzll(~m); /* continues the run */
    uint64_t two = m & m >> 1, four = two & two >> 2, eight = four & four >> 4;
    if (run + head >= 10 || (eight & two >> 8)) /* ten in a row */
      return 0;
    run = m == ~0ull ? run + 64 : (unsigned)__builtin_clzll(~m);
  }
  for (; p < end; p++) {
    run = *p >= 0x80 ? run + 1 : 0;
    if (run >= 10)
      return 0;
  }
  return 1;
}

/* Decodes the packed array s into *arr (room for *cap elements, grown to one
 * per byte); 0 when malformed, -1 when out of memory. */
static int decode_u64(ip_wire_span s, uint64_t **arr, size_t *cap, size_t *n) {
  if (!reserve((void **)arr, cap, (size_t)(s.end - s.p), sizeof **arr))
    return -1;
  long got = packed_u64(s.p, s.end, *arr);
  *n = got < 0 ? 0 : (size_t)got;
  return got >= 0;
}

static int decode_u32(ip_wire_span s, uint32_t **arr, size_t *cap, size_t *n) {
  if (!reserve((void **)arr, cap, (size_t)(s.end - s.p), sizeof **arr))
    return -1;
  long got = packed_u32(s.p, s.end, *arr);
  *n = got < 0 ? 0 : (size_t)got;
  return got >= 0;
}

/* Decodes (b != NULL) or only checks (b == NULL: packed arrays by packed_ok)
 * the record p[0..len).  Returns 1 with *tid set, 0 for protobuf-c, -1 when
 * out of memory. */
static int walk(ip_batch_buf *b, const uint8_t *p, size_t len, uint32_t *tid) {
  const uint8_t *body;
  size_t blen;
  ip_batch_fields f;
  /* Record: exactly one field, 6 (events), length-delimited, to the end;
   * the EventBatch of the fields proto/inclprof.proto defines, each array in
   * one part. */
  if (!ip_batch_record_body(p, len, &body, &blen) || !ip_batch_fields_read(body, blen, &f))
    return 0;
  const unsigned need = IP_BATCH_TID | IP_BATCH_SEQ | IP_BATCH_BASE_TICK;
  if ((f.have & (need | IP_BATCH_OTHER)) != need || f.tid > UINT32_MAX || f.kernel_lost > 1)
    return 0;
  *tid = (uint32_t)f.tid;
  if (!b)
    return packed_ok(f.dt.p, f.dt.end) && packed_ok(f.code.p, f.code.end) &&
           packed_ok(f.kernel_dt.p, f.kernel_dt.end) &&
           packed_ok(f.sample_addr.p, f.sample_addr.end) &&
           packed_ok(f.kernel_wakee.p, f.kernel_wakee.end) &&
           packed_ok(f.kernel_futex.p, f.kernel_futex.end) &&
           packed_ok(f.kernel_futex_op.p, f.kernel_futex_op.end) &&
           packed_ok(f.coroutine_frame.p, f.coroutine_frame.end) &&
           packed_ok(f.pointer_calls.p, f.pointer_calls.end);
  Inclprof__EventBatch *e = &b->batch;
  e->tid = (uint32_t)f.tid;
  e->seq = f.seq;
  e->base_tick = f.base_tick;
  e->has_kernel_base_tick = (f.have & IP_BATCH_KERNEL_BASE) != 0;
  e->kernel_base_tick = f.kernel_base_tick;
  e->has_kernel_lost = (f.have & IP_BATCH_KERNEL_LOST) != 0;
  e->kernel_lost = (protobuf_c_boolean)f.kernel_lost;
  int ok = decode_u64(f.dt, &e->dt, &b->cap_dt, &e->n_dt);
  if (ok > 0)
    ok = decode_u32(f.code, &e->code, &b->cap_code, &e->n_code);
  if (ok > 0)
    ok = decode_u64(f.kernel_dt, &e->kernel_dt, &b->cap_kernel, &e->n_kernel_dt);
  if (ok > 0)
    ok = decode_u64(f.sample_addr, &e->sample_addr, &b->cap_sample_addr, &e->n_sample_addr);
  if (ok > 0)
    ok = decode_u32(f.kernel_wakee, &e->kernel_wakee, &b->cap_kernel_wakee, &e->n_kernel_wakee);
  if (ok > 0)
    ok = decode_u64(f.kernel_futex, &e->kernel_futex, &b->cap_kernel_futex, &e->n_kernel_futex);
  if (ok > 0)
    ok = decode_u32(f.kernel_futex_op, &e->kernel_futex_op, &b->cap_kernel_futex_op,
                    &e->n_kernel_futex_op);
  if (ok > 0)
    ok = decode_u64(f.coroutine_frame, &e->coroutine_frame, &b->cap_coroutine_frame,
                    &e->n_coroutine_frame);
  if (ok > 0)
    ok = decode_u64(f.pointer_calls, &e->pointer_calls, &b->cap_pointer_calls, &e->n_pointer_calls);
  if (ok <= 0)
    return ok;
  b->rec.body_case = INCLPROF__RECORD__BODY_EVENTS;
  b->rec.events = e;
  return 1;
}

int ip_batch_decode(ip_batch_buf *b, const uint8_t *p, size_t len) {
  uint32_t tid;
  return walk(b, p, len, &tid);
}

int ip_batch_peek(const uint8_t *p, size_t len, uint32_t *tid) { return walk(NULL, p, len, tid); }
