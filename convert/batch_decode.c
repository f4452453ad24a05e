/* batch_decode.c - one-pass EventBatch decoding (see batch_decode.h). */
#include "batch_decode.h"

#include <stdlib.h>

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

/* Decodes a packed array of varints into *arr (grown as needed); returns the
 * element count, or -1 (malformed: let protobuf-c decide), -2 (no memory). */
static long packed(const uint8_t *p, const uint8_t *end, void **arr, size_t *cap, int wide) {
  size_t n = 0;
  while (p < end) {
    uint64_t v;
    if (!get_varint(&p, end, &v))
      return -1;
    if (n == *cap) {
      size_t ncap = *cap ? *cap * 2 : 4096;
      void *a = realloc(*arr, ncap * (wide ? sizeof(uint64_t) : sizeof(uint32_t)));
      if (!a)
        return -2;
      *arr = a;
      *cap = ncap;
    }
    if (wide)
      ((uint64_t *)*arr)[n++] = v;
    else if (v > UINT32_MAX)
      return -1;
    else
      ((uint32_t *)*arr)[n++] = (uint32_t)v;
  }
  return (long)n;
}

void ip_batch_buf_init(ip_batch_buf *b) {
  inclprof__record__init(&b->rec);
  inclprof__event_batch__init(&b->batch);
  b->cap_dt = b->cap_code = 0;
}

void ip_batch_buf_free(ip_batch_buf *b) {
  free(b->batch.dt);
  free(b->batch.code);
  ip_batch_buf_init(b);
}

/* Field keys: field number << 3 | wire type (0 varint, 2 length-delimited). */
#define KEY(field, wire) ((uint64_t)(field) << 3 | (wire))
enum { VARINT = 0, LEN = 2 };

int ip_batch_decode(ip_batch_buf *b, const uint8_t *p, size_t len) {
  const uint8_t *end = p + len;
  uint64_t v, blen;
  /* Record: exactly one field, 6 (events), length-delimited, to the end. */
  if (!get_varint(&p, end, &v) || v != KEY(6, LEN) || !get_varint(&p, end, &blen) ||
      blen != (uint64_t)(end - p))
    return 0;
  Inclprof__EventBatch *e = &b->batch;
  int have = 0; /* bits: 1 tid, 2 seq, 4 base_tick */
  e->n_dt = e->n_code = 0;
  while (p < end) {
    uint64_t tag;
    if (!get_varint(&p, end, &tag))
      return 0;
    switch (tag) {
    case KEY(1, VARINT):
      if (!get_varint(&p, end, &v) || v > UINT32_MAX)
        return 0;
      e->tid = (uint32_t)v;
      have |= 1;
      break;
    case KEY(2, VARINT):
      if (!get_varint(&p, end, &e->seq))
        return 0;
      have |= 2;
      break;
    case KEY(3, VARINT):
      if (!get_varint(&p, end, &e->base_tick))
        return 0;
      have |= 4;
      break;
    case KEY(4, LEN):
    case KEY(5, LEN): {
      uint64_t n;
      if (!get_varint(&p, end, &n) || n > (uint64_t)(end - p))
        return 0;
      int is_dt = tag == KEY(4, LEN);
      if ((is_dt ? e->n_dt : e->n_code) != 0) /* a repeated field split in parts */
        return 0;
      long got = is_dt ? packed(p, p + n, (void **)&e->dt, &b->cap_dt, 1)
                       : packed(p, p + n, (void **)&e->code, &b->cap_code, 0);
      if (got < 0)
        return got == -2 ? -1 : 0;
      if (is_dt)
        e->n_dt = (size_t)got;
      else
        e->n_code = (size_t)got;
      p += n;
      break;
    }
    default:
      return 0;
    }
  }
  if (have != 7)
    return 0;
  b->rec.body_case = INCLPROF__RECORD__BODY_EVENTS;
  b->rec.events = e;
  return 1;
}
