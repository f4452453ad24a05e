/* trace_mutator.c - structure-aware mutations of inclprof trace images for
 * the fuzzers (see trace_mutator.h).  An input is parsed as the preamble and
 * its frames (varint length, Record bytes, CRC-32); one edit is made at the
 * level of frames (drop, duplicate, swap, move, cut, a wrong length varint or
 * crc), of a record's protobuf fields (varints set to edge values, doubles to
 * NaN and infinities, strings edited, lengths lied about, fields dropped,
 * duplicated or added), or of an EventBatch's packed dt/code arrays (one
 * element set, its kind or gid changed, elements dropped, inserted or swapped,
 * the arrays cut mid-varint or made unequal); the frames are then written
 * back with fresh lengths and crcs, unless the edit was to the framing
 * itself.  Crossover splices a run of frames from one trace into another. */
#include "trace_mutator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "event_batch_wire.h"
#include "frame_read.h"
#include "trace_frame.h"
#include "trace_gen.h"
#include "wire_read.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#define MAX_FRAMES 4096
#define MAX_FIELDS 64
#define MAX_ELEMS  8192

typedef struct span {
  const uint8_t *p;
  size_t n;
} span;

typedef struct frames {
  span f[MAX_FRAMES]; /* record bytes of each complete frame */
  size_t n;
  span tail; /* bytes after the last complete frame */
} frames;

typedef struct field {
  uint32_t key;
  uint64_t v; /* varint and fixed values */
  span bytes; /* length-delimited payload */
} field;

static uint64_t rs;
static uint32_t rnd(void) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return (uint32_t)(rs >> 11);
}

static const uint64_t edge[] = {0,          1,          2,          0x7f,        0x80,
                                0xff,       0xffff,     0x7fffffff, 0x80000000u, 0xffffffffu,
                                1ull << 32, 1ull << 62, 1ull << 63, UINT64_MAX,  UINT64_MAX - 1};
static uint64_t edge_value(uint64_t old) {
  switch (rnd() % 4) {
  case 0:
    return old + 1 + rnd() % 3;
  case 1:
    return old - 1 - rnd() % 3;
  case 2:
    return (uint64_t)rnd() << (rnd() % 40);
  default:
    return edge[rnd() % (sizeof edge / sizeof edge[0])];
  }
}

/* The varint at p[0..n): its value in *v and its length, or 0. */
static size_t get_varint(const uint8_t *p, size_t n, uint64_t *v) {
  const uint8_t *q = p;
  return ip_wire_varint(&q, p + n, v) ? (size_t)(q - p) : 0;
}

/* Splits an image into frames; returns 0 when it has no preamble. */
static int parse_frames(const uint8_t *d, size_t size, frames *fs) {
  fs->n = 0;
  if (size < IP_TRACE_PREAMBLE_LEN)
    return 0;
  size_t at = IP_TRACE_PREAMBLE_LEN;
  ip_frame_view f;
  while (at < size && fs->n < MAX_FRAMES && ip_frame_next(d + at, size - at, &f) == IP_FRAME_OK) {
    fs->f[fs->n++] = (span){f.record, f.record_len};
    at += f.size;
  }
  fs->tail = (span){d + at, size - at};
  return 1;
}

/* A growing output buffer bounded by cap; ok = 0 once it would overflow. */
typedef struct out {
  uint8_t *p;
  size_t n, cap;
  int ok;
} out;

static void put(out *o, const void *p, size_t n) {
  if (!n)
    return;
  if (!o->ok || n > o->cap - o->n) {
    o->ok = 0;
    return;
  }
  memcpy(o->p + o->n, p, n);
  o->n += n;
}
static void put_varint(out *o, uint64_t v) {
  uint8_t b[10] = {0};
  put(o, b, (size_t)(ip_put_varint(b, v) - b));
}
static void put_crc(out *o, uint32_t crc) {
  const uint8_t c[4] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16),
                        (uint8_t)(crc >> 24)};
  put(o, c, 4);
}
static void put_frame(out *o, span rec) {
  put_varint(o, rec.n);
  put(o, rec.p, rec.n);
  put_crc(o, ip_frame_crc(rec.p, rec.n));
}

/* Parses a protobuf message into fields; -1 if it is not one. */
static int parse_fields(span m, field *f, int max) {
  size_t at = 0;
  int n = 0;
  while (at < m.n && n < max) {
    uint64_t key, v = 0;
    size_t k = get_varint(m.p + at, m.n - at, &key);
    if (!k)
      return -1;
    at += k;
    field *x = &f[n++];
    x->key = (uint32_t)key;
    x->bytes = (span){NULL, 0};
    switch (key & 7) {
    case 0:
      if (!(k = get_varint(m.p + at, m.n - at, &v)))
        return -1;
      x->v = v;
      at += k;
      break;
    case 1:
      if (m.n - at < 8)
        return -1;
      memcpy(&x->v, m.p + at, 8);
      at += 8;
      break;
    case 2:
      if (!(k = get_varint(m.p + at, m.n - at, &v)) || v > m.n - at - k)
        return -1;
      x->bytes = (span){m.p + at + k, (size_t)v};
      at += k + (size_t)v;
      break;
    case 5:
      if (m.n - at < 4)
        return -1;
      x->v = (uint64_t)m.p[at] | (uint64_t)m.p[at + 1] << 8 | (uint64_t)m.p[at + 2] << 16 |
             (uint64_t)m.p[at + 3] << 24;
      at += 4;
      break;
    default:
      return -1;
    }
  }
  return at == m.n ? n : -1;
}

static void put_field(out *o, const field *x) {
  put_varint(o, x->key);
  switch (x->key & 7) {
  case 0:
    put_varint(o, x->v);
    break;
  case 1:
    put(o, &x->v, 8);
    break;
  case 2:
    put_varint(o, x->bytes.n);
    put(o, x->bytes.p, x->bytes.n);
    break;
  default: {
    uint32_t w = (uint32_t)x->v;
    put(o, &w, 4);
  }
  }
}

/* Packed varints of an EventBatch array. */
static size_t parse_packed(span s, uint64_t *e, size_t max) {
  size_t at = 0, n = 0;
  while (at < s.n && n < max) {
    size_t k = get_varint(s.p + at, s.n - at, &e[n]);
    if (!k)
      break;
    at += k;
    n++;
  }
  return n;
}

/* Edits the element lists of dt (a) and code (b); both = 1 keeps them equal. */
static void edit_arrays(uint64_t *a, size_t *na, uint64_t *b, size_t *nb, int is_code) {
  size_t n = *na;
  size_t j = n ? rnd() % n : 0;
  switch (rnd() % 9) {
  case 0: /* one element to an edge value */
    if (n)
      a[j] = edge_value(a[j]);
    break;
  case 1: /* code: another kind, same argument; dt: toggle the transition bit */
    if (n)
      a[j] = is_code ? (a[j] & ~7ull) | (rnd() % 8) : a[j] ^ 1;
    break;
  case 2: /* code: another gid (often one just past the table); dt: a big step */
    if (n)
      a[j] = is_code ? (uint64_t)(rnd() % 96) << 3 | (a[j] & 7) : (uint64_t)rnd() << 20;
    break;
  case 3: /* drop one element of this array only: dt and code differ in length */
    if (n) {
      memmove(a + j, a + j + 1, (n - j - 1) * sizeof *a);
      (*na)--;
    }
    break;
  case 4: /* drop the same element of both arrays */
    if (n && j < *nb) {
      memmove(a + j, a + j + 1, (n - j - 1) * sizeof *a);
      memmove(b + j, b + j + 1, (*nb - j - 1) * sizeof *b);
      (*na)--;
      (*nb)--;
    }
    break;
  case 5: /* insert a copy of an element in both arrays */
    if (n && n < MAX_ELEMS && j < *nb && *nb < MAX_ELEMS) {
      memmove(a + j + 1, a + j, (n - j) * sizeof *a);
      memmove(b + j + 1, b + j, (*nb - j) * sizeof *b);
      (*na)++;
      (*nb)++;
    }
    break;
  case 6: { /* swap two events (both arrays): exits before entries */
    size_t k = n ? rnd() % n : 0;
    if (n && j < *nb && k < *nb) {
      uint64_t t = a[j];
      a[j] = a[k];
      a[k] = t;
      t = b[j];
      b[j] = b[k];
      b[k] = t;
    }
    break;
  }
  case 7: /* keep only a prefix of both */
    *na = j;
    if (*nb > j)
      *nb = j;
    break;
  default: /* every element at once to one value: long runs of a kind */
    for (size_t i = 0; i < n; i++)
      a[i] = is_code ? (a[i] & ~7ull) | (a[j] & 7) : a[j];
  }
}

static uint64_t arr_a[MAX_ELEMS], arr_b[MAX_ELEMS];
static uint8_t arr_buf[2][MAX_ELEMS * 10 + 16];
static uint8_t str_buf[4096];

/* One edit of a submessage's fields; arrays and strings are rebuilt into the
 * static buffers above.  Returns the number of fields. */
static int edit_fields(field *f, int n, int is_batch) {
  int i = n ? (int)(rnd() % (unsigned)n) : 0;
  unsigned what = rnd() % 8;
  if (is_batch && what < 4) {
    int ia = -1, ib = -1;
    for (int k = 0; k < n; k++) {
      if (f[k].key == IP_WIRE_KEY(IP_TAG_BATCH_DT, IP_WIRE_LEN) && ia < 0)
        ia = k;
      if (f[k].key == IP_WIRE_KEY(IP_TAG_BATCH_CODE, IP_WIRE_LEN) && ib < 0)
        ib = k;
    }
    if (ia >= 0 && ib >= 0) {
      int code = rnd() % 2;
      field *x = &f[code ? ib : ia], *y = &f[code ? ia : ib];
      size_t na = parse_packed(x->bytes, arr_a, MAX_ELEMS);
      size_t nb = parse_packed(y->bytes, arr_b, MAX_ELEMS);
      edit_arrays(arr_a, &na, arr_b, &nb, code);
      out oa = {arr_buf[0], 0, sizeof arr_buf[0], 1}, ob = {arr_buf[1], 0, sizeof arr_buf[1], 1};
      for (size_t k = 0; k < na; k++)
        put_varint(&oa, arr_a[k]);
      for (size_t k = 0; k < nb; k++)
        put_varint(&ob, arr_b[k]);
      if (oa.n && rnd() % 16 == 0) /* cut the last varint in half */
        arr_buf[0][oa.n - 1] |= 0x80;
      x->bytes = (span){arr_buf[0], oa.n};
      y->bytes = (span){arr_buf[1], ob.n};
      return n;
    }
  }
  if (!n)
    what = 7;
  switch (what) {
  case 0:
  case 1:
  case 2: /* a value: varints and fixed to edge values, doubles to odd ones */
    if ((f[i].key & 7) == 1 && rnd() % 2) {
      static const double odd[] = {0.0, -1.0, 1e-300, 1e300, -1e18, INFINITY, -INFINITY, NAN};
      double d = odd[rnd() % 8];
      memcpy(&f[i].v, &d, 8);
    } else if ((f[i].key & 7) == 2) {
      size_t len = f[i].bytes.n < sizeof str_buf ? f[i].bytes.n : sizeof str_buf;
      memcpy(str_buf, f[i].bytes.p, len);
      len = LLVMFuzzerMutate(str_buf, len, sizeof str_buf);
      f[i].bytes = (span){str_buf, len};
    } else {
      f[i].v = edge_value(f[i].v);
    }
    return n;
  case 3: /* drop a field (often a required one) */
    memmove(f + i, f + i + 1, (size_t)(n - i - 1) * sizeof *f);
    return n - 1;
  case 4: /* duplicate a field: a repeated scalar, or a later value that wins */
    if (n < MAX_FIELDS) {
      memmove(f + i + 1, f + i, (size_t)(n - i) * sizeof *f);
      return n + 1;
    }
    return n;
  case 5: /* the field under another number or wire type */
    f[i].key = rnd() % 2 ? (f[i].key & 7) | (rnd() % 20) << 3 : (f[i].key & ~7u) | rnd() % 6;
    if ((f[i].key & 7) == 2 && !f[i].bytes.p)
      f[i].bytes = (span){str_buf, 0};
    return n;
  case 6: { /* swap two fields */
    int k = (int)(rnd() % (unsigned)n);
    field t = f[i];
    f[i] = f[k];
    f[k] = t;
    return n;
  }
  default: /* add a field of a random number */
    if (n < MAX_FIELDS) {
      f[n] = (field){.key = (rnd() % 20) << 3, .v = edge_value(0)};
      return n + 1;
    }
    return n;
  }
}

static uint8_t rec_buf[2][MAX_ELEMS * 24];

/* One edit inside a record: its body (the oneof's message) or, rarely, the
 * record's own fields.  The result is in rec_buf[0]. */
static span edit_record(span rec) {
  field top[MAX_FIELDS], sub[MAX_FIELDS];
  int nt = parse_fields(rec, top, MAX_FIELDS);
  out o = {rec_buf[0], 0, sizeof rec_buf[0], 1};
  if (nt < 1 || (top[0].key & 7) != 2 || rnd() % 16 == 0) {
    /* not a message we can walk, or a plain byte edit for variety */
    size_t n = rec.n < sizeof rec_buf[1] ? rec.n : sizeof rec_buf[1];
    memcpy(rec_buf[1], rec.p, n);
    n = LLVMFuzzerMutate(rec_buf[1], n, sizeof rec_buf[1]);
    return (span){rec_buf[1], n};
  }
  int ns = parse_fields(top[0].bytes, sub, MAX_FIELDS);
  if (ns < 0 || rnd() % 12 == 0) {
    nt = edit_fields(top, nt, 0);
    for (int k = 0; k < nt; k++)
      put_field(&o, &top[k]);
    return o.ok ? (span){o.p, o.n} : rec;
  }
  int is_batch = top[0].key == IP_WIRE_KEY(IP_TAG_RECORD_EVENTS, IP_WIRE_LEN);
  ns = edit_fields(sub, ns, is_batch);
  out so = {rec_buf[1], 0, sizeof rec_buf[1], 1};
  for (int k = 0; k < ns; k++)
    put_field(&so, &sub[k]);
  if (!so.ok)
    return rec;
  put_varint(&o, top[0].key);
  uint64_t len = so.n;
  if (rnd() % 24 == 0) /* the body's length lies */
    len = rnd() % 2 ? len + 1 + rnd() % 4 : (len ? len - 1 : 0);
  put_varint(&o, len);
  put(&o, so.p, so.n);
  for (int k = 1; k < nt; k++)
    put_field(&o, &top[k]);
  return o.ok ? (span){o.p, o.n} : rec;
}

static frames fa, fb;
static uint8_t scratch[1 << 20];

/* Writes preamble, frames [0, n) of fs with fresh framing, and the tail. */
static size_t write_frames(out *o, const uint8_t *pre, const frames *fs, size_t n) {
  put(o, pre, IP_TRACE_PREAMBLE_LEN);
  for (size_t k = 0; k < n; k++)
    put_frame(o, fs->f[k]);
  put(o, fs->tail.p, fs->tail.n);
  return o->ok ? o->n : 0;
}

size_t ip_trace_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed) {
  rs = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 17 | seed) ^ size;
  if (!parse_frames(data, size, &fa) || fa.n == 0 || rnd() % 16 == 0) {
    size = LLVMFuzzerMutate(data, size, max_size);
    if (rnd() % 4)
      tg_fix_crcs(data, size);
    return size;
  }
  size_t cap = max_size < sizeof scratch ? max_size : sizeof scratch;
  out o = {scratch, 0, cap, 1};
  size_t k = rnd() % fa.n, j = rnd() % fa.n, n = fa.n;
  unsigned op = rnd() % 16;
  switch (op) {
  case 0: /* drop a frame: a lost batch, a missing table record or trailer */
    memmove(&fa.f[k], &fa.f[k + 1], (n - k - 1) * sizeof fa.f[0]);
    n--;
    break;
  case 1: /* duplicate a frame: a repeated seq, a redefined gid */
    if (n < MAX_FRAMES) {
      memmove(&fa.f[j + 1], &fa.f[j], (n - j) * sizeof fa.f[0]);
      fa.f[j] = fa.f[k < j ? k : k + 1];
      n++;
    }
    break;
  case 2: { /* swap two frames: batches out of order, tables late */
    span t = fa.f[k];
    fa.f[k] = fa.f[j];
    fa.f[j] = t;
    break;
  }
  case 3:
  case 4:
  case 5: { /* frame k cut short, or with a wrong length varint or crc; the
             * framing is left broken */
    fa.tail = (span){NULL, 0};
    if (!write_frames(&o, data, &fa, k))
      return size;
    span f = fa.f[k];
    uint64_t len = f.n;
    uint32_t crc = ip_frame_crc(f.p, f.n);
    unsigned how = rnd() % 3;
    if (op == 4 && how == 0)
      len = edge_value(len);
    put_varint(&o, len);
    if (op == 4 && how == 1 && o.ok) { /* an overlong encoding of the right length */
      o.p[o.n - 1] |= 0x80;
      put(&o, "", 1);
    }
    if (op == 3) {
      put(&o, f.p, rnd() % (f.n + 1));
      n = k;
    } else {
      put(&o, f.p, f.n);
      put_crc(&o, op == 5 ? crc ^ 1u << rnd() % 32 : crc);
    }
    for (size_t i = k + 1; i < n; i++)
      put_frame(&o, fa.f[i]);
    if (!o.ok)
      return size;
    memcpy(data, scratch, o.n);
    return o.n;
  }
  default: /* most edits are inside a record */
    fa.f[k] = edit_record(fa.f[k]);
  }
  size_t m = write_frames(&o, data, &fa, n);
  if (!m)
    return size;
  memcpy(data, scratch, m);
  return m;
}

size_t ip_trace_crossover(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *outp,
                          size_t max_out, unsigned seed) {
  rs = 0x2545f4914f6cdd1dull ^ ((uint64_t)seed << 21 | seed);
  if (!parse_frames(d1, s1, &fa) || !parse_frames(d2, s2, &fb) || !fa.n || !fb.n)
    return 0;
  /* frames [0, a) of the first, [b, b + len) of the second, the rest of the first */
  size_t a = rnd() % (fa.n + 1), b = rnd() % fb.n, len = 1 + rnd() % (fb.n - b);
  out o = {outp, 0, max_out, 1};
  put(&o, d1, IP_TRACE_PREAMBLE_LEN);
  for (size_t k = 0; k < a; k++)
    put_frame(&o, fa.f[k]);
  for (size_t k = b; k < b + len; k++)
    put_frame(&o, fb.f[k]);
  for (size_t k = a; k < fa.n; k++)
    put_frame(&o, fa.f[k]);
  return o.ok ? o.n : 0;
}
