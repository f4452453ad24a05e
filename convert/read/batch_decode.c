/* read/batch_decode.c - one-pass EventBatch decoding (see read/batch_decode.h). */
#include "read/batch_decode.h"

#include "event_batch_wire.h"

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
  b->cap_dt = b->cap_code = b->cap_kernel = 0;
}

void ip_batch_buf_free(ip_batch_buf *b) {
  free(b->batch.dt);
  free(b->batch.code);
  free(b->batch.kernel_dt);
  ip_batch_buf_init(b);
}

#define KEY(field, wire) ((uint64_t)IP_WIRE_KEY(field, wire))

int ip_batch_decode(ip_batch_buf *b, const uint8_t *p, size_t len) {
  const uint8_t *end = p + len;
  uint64_t v, blen;
  /* Record: exactly one field, 6 (events), length-delimited, to the end. */
  if (!get_varint(&p, end, &v) || v != KEY(IP_TAG_RECORD_EVENTS, IP_WIRE_LEN) ||
      !get_varint(&p, end, &blen) || blen != (uint64_t)(end - p))
    return 0;
  Inclprof__EventBatch *e = &b->batch;
  int have = 0; /* bits: 1 tid, 2 seq, 4 base_tick */
  e->n_dt = e->n_code = e->n_kernel_dt = 0;
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
    case KEY(IP_TAG_BATCH_CODE, IP_WIRE_LEN): {
      uint64_t n;
      if (!get_varint(&p, end, &n) || n > (uint64_t)(end - p))
        return 0;
      int is_dt = tag == KEY(IP_TAG_BATCH_DT, IP_WIRE_LEN);
      if ((is_dt ? e->n_dt : e->n_code) != 0) /* a repeated field split in parts */
        return 0;
      long got;
      if (is_dt) {
        if (!reserve((void **)&e->dt, &b->cap_dt, (size_t)n, sizeof *e->dt))
          return -1;
        got = packed_u64(p, p + n, e->dt);
      } else {
        if (!reserve((void **)&e->code, &b->cap_code, (size_t)n, sizeof *e->code))
          return -1;
        got = packed_u32(p, p + n, e->code);
      }
      if (got < 0)
        return 0;
      if (is_dt)
        e->n_dt = (size_t)got;
      else
        e->n_code = (size_t)got;
      p += n;
      break;
    }
    case KEY(IP_TAG_BATCH_KERNEL_DT, IP_WIRE_LEN): {
      uint64_t n;
      if (!get_varint(&p, end, &n) || n > (uint64_t)(end - p) || e->n_kernel_dt)
        return 0;
      if (!reserve((void **)&e->kernel_dt, &b->cap_kernel, (size_t)n, sizeof *e->kernel_dt))
        return -1;
      long got = packed_u64(p, p + n, e->kernel_dt);
      if (got < 0)
        return 0;
      e->n_kernel_dt = (size_t)got;
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
  if (have != 7)
    return 0;
  b->rec.body_case = INCLPROF__RECORD__BODY_EVENTS;
  b->rec.events = e;
  return 1;
}
