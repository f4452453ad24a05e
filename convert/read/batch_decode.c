/* read/batch_decode.c - one-pass EventBatch decoding (see read/batch_decode.h). */
#include "read/batch_decode.h"

#include "event_batch_read.h"
#include "wire_read.h"

#include <stdlib.h>
#include <string.h>
/* IP_NO_SSSE3 (a benchmark build, see convert/build.mk) keeps the scalar decoding. */
#if defined(__x86_64__) && !defined(IP_NO_SSSE3)
#define IP_SSSE3_VARINTS 1
#include <immintrin.h>
#include <pthread.h>
#endif

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

#ifdef IP_SSSE3_VARINTS
/* Eight bytes of varints at a time (x86-64 with SSSE3): the continuation
 * bits of bytes 0..8 pick a row saying how many varints of one or two bytes
 * begin in bytes 0..7 one after another (up to the first longer one), the
 * bytes they take, and the shuffle that puts each into a 16-bit lane, its
 * second byte (or 0) high. */
typedef struct short_run {
  uint8_t count, bytes;
  uint8_t shuffle[16];
} short_run;

static short_run short_runs[512];
static int short_runs_ok; /* the CPU has SSSE3: the table is filled */
static pthread_once_t short_runs_once = PTHREAD_ONCE_INIT;

static void short_runs_fill(void) {
  short_runs_ok = __builtin_cpu_supports("ssse3");
  for (unsigned m = 0; m < 512; m++) {
    short_run *r = &short_runs[m];
    memset(r->shuffle, 0x80, sizeof r->shuffle); /* 0x80: a zero byte */
    unsigned at = 0, k = 0;
    while (at < 8) {
      r->shuffle[2 * k] = (uint8_t)at;
      if (!(m >> at & 1)) {
        at += 1;
      } else if (!(m >> (at + 1) & 1)) {
        r->shuffle[2 * k + 1] = (uint8_t)(at + 1);
        at += 2;
      } else {
        r->shuffle[2 * k] = 0x80;
        break;
      }
      k++;
    }
    r->count = (uint8_t)k;
    r->bytes = (uint8_t)at;
  }
}

/* The short varints at the start of p[0..16) as described by their row,
 * in eight 16-bit lanes (those past the row's count are 0). */
__attribute__((target("ssse3"))) static inline __m128i short_lanes(const uint8_t *p,
                                                                   const short_run **row) {
  __m128i x = _mm_loadu_si128((const __m128i *)p);
  unsigned m = (unsigned)_mm_movemask_epi8(x) & 511;
  *row = &short_runs[m];
  __m128i lanes = _mm_shuffle_epi8(x, _mm_loadu_si128((const __m128i *)(*row)->shuffle));
  return _mm_or_si128(_mm_and_si128(lanes, _mm_set1_epi16(0x7f)),
                      _mm_and_si128(_mm_srli_epi16(lanes, 1), _mm_set1_epi16(0x3f80)));
}

/* packed_u64's loop while 16 bytes are left; the element count so far,
 * *pp moved past what it decoded, or -1 when malformed. */
__attribute__((target("ssse3"))) static long short_u64(const uint8_t **pp, const uint8_t *end,
                                                       uint64_t *arr) {
  const uint8_t *p = *pp;
  size_t n = 0;
  const __m128i zero = _mm_setzero_si128();
  while (end - p >= 16) {
    const short_run *row;
    __m128i v = short_lanes(p, &row);
    if (!row->count) { /* a longer varint first */
      if (!(p = varint_at(p, &arr[n++])))
        return -1;
      continue;
    }
    __m128i lo = _mm_unpacklo_epi16(v, zero), hi = _mm_unpackhi_epi16(v, zero);
    _mm_storeu_si128((__m128i *)&arr[n], _mm_unpacklo_epi32(lo, zero));
    _mm_storeu_si128((__m128i *)&arr[n + 2], _mm_unpackhi_epi32(lo, zero));
    _mm_storeu_si128((__m128i *)&arr[n + 4], _mm_unpacklo_epi32(hi, zero));
    _mm_storeu_si128((__m128i *)&arr[n + 6], _mm_unpackhi_epi32(hi, zero));
    n += row->count;
    p += row->bytes;
  }
  *pp = p;
  return (long)n;
}

/* The same into 32-bit elements. */
__attribute__((target("ssse3"))) static long short_u32(const uint8_t **pp, const uint8_t *end,
                                                       uint32_t *arr) {
  const uint8_t *p = *pp;
  size_t n = 0;
  const __m128i zero = _mm_setzero_si128();
  while (end - p >= 16) {
    const short_run *row;
    __m128i v = short_lanes(p, &row);
    if (!row->count) {
      uint64_t w;
      if (!(p = varint_at(p, &w)) || w > UINT32_MAX)
        return -1;
      arr[n++] = (uint32_t)w;
      continue;
    }
    _mm_storeu_si128((__m128i *)&arr[n], _mm_unpacklo_epi16(v, zero));
    _mm_storeu_si128((__m128i *)&arr[n + 4], _mm_unpackhi_epi16(v, zero));
    n += row->count;
    p += row->bytes;
  }
  *pp = p;
  return (long)n;
}

/* Whether the short runs can be used here: SSSE3 (the table filled once). */
static int short_runs_ready(void) {
  pthread_once(&short_runs_once, short_runs_fill);
  return short_runs_ok;
}
#endif

/* Decodes the packed varints p[0..end) into arr (room for one element per
 * byte: a varint has at least one); returns the count, or -1 when malformed
 * (protobuf-c then decides) - also when a value does not fit 32 bits
 * (narrow arrays).  The elements past the count up to 8 more may be
 * overwritten. */
static long packed_u64(const uint8_t *p, const uint8_t *end, uint64_t *arr) {
  size_t n = 0;
#ifdef IP_SSSE3_VARINTS
  if (short_runs_ready()) {
    long got = short_u64(&p, end, arr);
    if (got < 0)
      return -1;
    n = (size_t)got;
  }
#endif
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
#ifdef IP_SSSE3_VARINTS
  if (short_runs_ready()) {
    long got = short_u32(&p, end, arr);
    if (got < 0)
      return -1;
    n = (size_t)got;
  }
#endif
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
