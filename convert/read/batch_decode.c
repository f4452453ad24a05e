/* read/batch_decode.c - one-pass EventBatch decoding (see read/batch_decode.h). */
#include "read/batch_decode.h"

#include "event_batch_wire.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Reads a varint at *p (< end); 0 when it is cut short or longer than 10 bytes. */
static inline int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
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

/* Decodes the packed varints p[0..end) into arr (room for one element per
 * byte: a varint has at least one); returns the count, or -1 when malformed
 * (protobuf-c then decides) - also when a value does not fit 32 bits
 * (narrow arrays). */
static long packed_u64(const uint8_t *p, const uint8_t *end, uint64_t *arr) {
  size_t n = 0;
  while (p < end) {
    if (*p < 0x80) {
      arr[n++] = *p++;
      continue;
    }
    if (!get_varint(&p, end, &arr[n]))
      return -1;
    n++;
  }
  return (long)n;
}

static long packed_u32(const uint8_t *p, const uint8_t *end, uint32_t *arr) {
  size_t n = 0;
  while (p < end) {
    uint64_t v;
    if (*p < 0x80) {
      arr[n++] = *p++;
      continue;
    }
    if (!get_varint(&p, end, &v) || v > UINT32_MAX)
      return -1;
    arr[n++] = (uint32_t)v;
  }
  return (long)n;
}

void ip_batch_buf_init(ip_batch_buf *b) {
  inclprof__record__init(&b->rec);
  inclprof__event_batch__init(&b->batch);
  b->cap_dt = b->cap_code = b->cap_kernel = b->cap_sample_addr = 0;
}

void ip_batch_buf_free(ip_batch_buf *b) {
  free(b->batch.dt);
  free(b->batch.code);
  free(b->batch.kernel_dt);
  free(b->batch.sample_addr);
  ip_batch_buf_init(b);
}

#define KEY(field, wire) ((uint64_t)IP_WIRE_KEY(field, wire))

/* Bit i set when byte i of p[0..64) continues a varint (its high bit). */
static inline uint64_t continuation_mask(const uint8_t *p) {
  uint64_t m = 0;
#ifdef __SSE2__
  for (int k = 0; k < 4; k++)
    m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * k)))
         << (16 * k);
#else
  for (int k = 0; k < 8; k++) {
    uint64_t w;
    memcpy(&w, p + 8 * k, sizeof w);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    /* the eight high bits gathered into one byte, byte j's at bit j */
    m |= (((w & 0x8080808080808080ull) >> 7) * 0x0102040810204080ull) >> 56 << (8 * k);
  }
#endif
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

/* Decodes (b != NULL) or only checks (b == NULL: packed arrays by packed_ok)
 * the record p[0..len).  Returns 1 with *tid set, 0 for protobuf-c, -1 when
 * out of memory. */
static int walk(ip_batch_buf *b, const uint8_t *p, size_t len, uint32_t *tid) {
  const uint8_t *end = p + len;
  uint64_t v, blen;
  /* Record: exactly one field, 6 (events), length-delimited, to the end. */
  if (!get_varint(&p, end, &v) || v != KEY(IP_TAG_RECORD_EVENTS, IP_WIRE_LEN) ||
      !get_varint(&p, end, &blen) || blen != (uint64_t)(end - p))
    return 0;
  Inclprof__EventBatch scratch = INCLPROF__EVENT_BATCH__INIT, *e = b ? &b->batch : &scratch;
  int have = 0; /* bits: 1 tid, 2 seq, 4 base_tick; 8 dt, 16 code, 32 kernel_dt, 64 sample_addr */
  e->n_dt = e->n_code = e->n_kernel_dt = e->n_sample_addr = 0;
  e->has_kernel_base_tick = e->has_kernel_lost = 0;
  e->kernel_base_tick = 0;
  e->kernel_lost = 0;
  while (p < end) {
    uint64_t tag;
    if (!get_varint(&p, end, &tag))
      return 0;
    switch (tag) {
    case KEY(IP_TAG_BATCH_TID, IP_WIRE_VARINT):
      if (!get_varint(&p, end, &v) || v > UINT32_MAX)
        return 0;
      e->tid = (uint32_t)v;
      have |= 1;
      break;
    case KEY(IP_TAG_BATCH_SEQ, IP_WIRE_VARINT):
      if (!get_varint(&p, end, &e->seq))
        return 0;
      have |= 2;
      break;
    case KEY(IP_TAG_BATCH_BASE_TICK, IP_WIRE_VARINT):
      if (!get_varint(&p, end, &e->base_tick))
        return 0;
      have |= 4;
      break;
    case KEY(IP_TAG_BATCH_DT, IP_WIRE_LEN):
    case KEY(IP_TAG_BATCH_CODE, IP_WIRE_LEN):
    case KEY(IP_TAG_BATCH_KERNEL_DT, IP_WIRE_LEN):
    case KEY(IP_TAG_BATCH_SAMPLE_ADDR, IP_WIRE_LEN): {
      uint64_t n;
      int bit = tag == KEY(IP_TAG_BATCH_DT, IP_WIRE_LEN)          ? 8
                : tag == KEY(IP_TAG_BATCH_CODE, IP_WIRE_LEN)      ? 16
                : tag == KEY(IP_TAG_BATCH_KERNEL_DT, IP_WIRE_LEN) ? 32
                                                                  : 64;
      if (!get_varint(&p, end, &n) || n > (uint64_t)(end - p) || (have & bit))
        return 0; /* a repeated field split in parts goes to protobuf-c */
      have |= bit;
      long got = 0;
      if (!b)
        got = packed_ok(p, p + n) ? 0 : -1;
      else if (bit == 16) {
        if (!reserve((void **)&e->code, &b->cap_code, (size_t)n, sizeof *e->code))
          return -1;
        got = packed_u32(p, p + n, e->code);
        e->n_code = got < 0 ? 0 : (size_t)got;
      } else {
        uint64_t **arr = bit == 8 ? &e->dt : bit == 32 ? &e->kernel_dt : &e->sample_addr;
        size_t *cap = bit == 8 ? &b->cap_dt : bit == 32 ? &b->cap_kernel : &b->cap_sample_addr;
        if (!reserve((void **)arr, cap, (size_t)n, sizeof **arr))
          return -1;
        got = packed_u64(p, p + n, *arr);
        *(bit == 8    ? &e->n_dt
          : bit == 32 ? &e->n_kernel_dt
                      : &e->n_sample_addr) = got < 0 ? 0 : (size_t)got;
      }
      if (got < 0)
        return 0;
      p += n;
      break;
    }
    case KEY(IP_TAG_BATCH_KERNEL_BASE, IP_WIRE_VARINT):
      if (!get_varint(&p, end, &e->kernel_base_tick))
        return 0;
      e->has_kernel_base_tick = 1;
      break;
    case KEY(IP_TAG_BATCH_KERNEL_LOST, IP_WIRE_VARINT):
      if (!get_varint(&p, end, &v) || v > 1)
        return 0;
      e->kernel_lost = (protobuf_c_boolean)v;
      e->has_kernel_lost = 1;
      break;
    default:
      return 0;
    }
  }
  if ((have & 7) != 7)
    return 0;
  *tid = e->tid;
  if (b) {
    b->rec.body_case = INCLPROF__RECORD__BODY_EVENTS;
    b->rec.events = e;
  }
  return 1;
}

int ip_batch_decode(ip_batch_buf *b, const uint8_t *p, size_t len) {
  uint32_t tid;
  return walk(b, p, len, &tid);
}

int ip_batch_peek(const uint8_t *p, size_t len, uint32_t *tid) { return walk(NULL, p, len, tid); }
