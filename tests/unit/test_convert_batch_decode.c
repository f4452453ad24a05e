/* test_convert_batch_decode.c - the one-pass EventBatch decoder agrees with
 * protobuf-c on random batches (with and without kernel-event records),
 * reuses its arrays, and hands everything it
 * does not handle (other records, unknown fields, unpacked arrays, damage)
 * back to protobuf-c instead of guessing; ip_batch_peek accepts exactly the
 * batches of known fields whose arrays protobuf-c decodes. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "read/batch_decode.h"
#include "check_main.h"

static size_t pack_batch(const Inclprof__EventBatch *e, uint8_t **out) {
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_EVENTS;
  rec.events = (Inclprof__EventBatch *)e;
  size_t n = inclprof__record__get_packed_size(&rec);
  *out = malloc(n + 16);
  ck_assert_ptr_nonnull(*out);
  return inclprof__record__pack(&rec, *out);
}

static uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

START_TEST(agrees_with_protobuf_c) {
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  ip_batch_buf b;
  ip_batch_buf_init(&b);
  for (int round = 0; round < 200; round++) {
    size_t n = rnd(&seed) % 5000;
    uint64_t *dt = malloc((n + 1) * sizeof *dt);
    ck_assert_ptr_nonnull(dt);
    uint32_t *code = malloc((n + 1) * sizeof *code);
    ck_assert_ptr_nonnull(code);
    for (size_t i = 0; i < n; i++) {
      int bits = (int)(rnd(&seed) % 64);
      dt[i] = rnd(&seed) >> bits; /* from 1 to 10 varint bytes */
      code[i] = (uint32_t)(rnd(&seed) >> (32 + rnd(&seed) % 32));
    }
    Inclprof__EventBatch e = INCLPROF__EVENT_BATCH__INIT;
    e.tid = (uint32_t)rnd(&seed);
    e.seq = rnd(&seed) >> (rnd(&seed) % 64);
    e.base_tick = rnd(&seed);
    e.n_dt = e.n_code = n;
    e.dt = dt;
    e.code = code;
    /* kevents batches: kernel records in every other round, lost in some */
    size_t nk = round % 2 ? rnd(&seed) % 3000 : 0;
    uint64_t *kdt = malloc((nk + 1) * sizeof *kdt);
    ck_assert_ptr_nonnull(kdt);
    for (size_t i = 0; i < nk; i++)
      kdt[i] = rnd(&seed) >> (rnd(&seed) % 64);
    e.n_kernel_dt = nk;
    e.kernel_dt = kdt;
    e.has_kernel_base_tick = nk > 0;
    e.kernel_base_tick = rnd(&seed);
    e.has_kernel_lost = round % 5 == 0;
    e.kernel_lost = round % 10 == 0;
    uint8_t *buf;
    size_t len = pack_batch(&e, &buf);
    uint32_t tid = 0;
    ck_assert_int_eq(ip_batch_peek(buf, len, &tid), 1);
    ck_assert_uint_eq(tid, e.tid);
    ck_assert_int_eq(ip_batch_decode(&b, buf, len), 1);
    Inclprof__Record *ref = inclprof__record__unpack(NULL, len, buf);
    ck_assert_ptr_nonnull(ref);
    const Inclprof__EventBatch *got = b.rec.events, *want = ref->events;
    ck_assert_int_eq(b.rec.body_case, INCLPROF__RECORD__BODY_EVENTS);
    ck_assert_uint_eq(got->tid, want->tid);
    ck_assert_uint_eq(got->seq, want->seq);
    ck_assert_uint_eq(got->base_tick, want->base_tick);
    ck_assert_uint_eq(got->n_dt, want->n_dt);
    ck_assert_uint_eq(got->n_code, want->n_code);
    ck_assert(n == 0 || !memcmp(got->dt, want->dt, n * sizeof *dt));
    ck_assert(n == 0 || !memcmp(got->code, want->code, n * sizeof *code));
    ck_assert_uint_eq(got->n_kernel_dt, want->n_kernel_dt);
    ck_assert(nk == 0 || !memcmp(got->kernel_dt, want->kernel_dt, nk * sizeof *kdt));
    ck_assert_int_eq(got->has_kernel_base_tick, want->has_kernel_base_tick);
    ck_assert(!want->has_kernel_base_tick || got->kernel_base_tick == want->kernel_base_tick);
    ck_assert_int_eq(got->has_kernel_lost, want->has_kernel_lost);
    ck_assert_int_eq(got->kernel_lost, want->kernel_lost);
    inclprof__record__free_unpacked(ref, NULL);
    free(buf);
    free(kdt);
    free(dt);
    free(code);
  }
  ip_batch_buf_free(&b);
}
END_TEST

/* Batches as the runtime writes them: deltas and codes of one or two bytes
 * in no order, now and then a longer one (decoded eight bytes at a time
 * where the CPU allows, a longer varint one by one), at every length up to
 * a few hundred so that each ends at every place of the eight-byte steps. */
START_TEST(short_varints_agree) {
  uint64_t seed = 0x2545f4914f6cdd1dull;
  ip_batch_buf b;
  ip_batch_buf_init(&b);
  for (size_t n = 0; n < 400; n++) {
    uint64_t *dt = malloc((n + 1) * sizeof *dt);
    uint32_t *code = malloc((n + 1) * sizeof *code);
    ck_assert(dt && code);
    int longer = n % 3 ? 16 : 0; /* one in 16 longer, or none */
    for (size_t i = 0; i < n; i++) {
      dt[i] = rnd(&seed) % (rnd(&seed) % 2 ? 128 : 16384);
      code[i] = (uint32_t)(rnd(&seed) % (rnd(&seed) % 2 ? 128 : 16384));
      if (longer && rnd(&seed) % longer == 0)
        dt[i] = rnd(&seed) >> (rnd(&seed) % 50);
      if (longer && rnd(&seed) % longer == 0)
        code[i] = (uint32_t)(rnd(&seed) >> (32 + rnd(&seed) % 18));
    }
    Inclprof__EventBatch e = INCLPROF__EVENT_BATCH__INIT;
    e.tid = 5;
    e.seq = n;
    e.base_tick = 1000;
    e.n_dt = e.n_code = n;
    e.dt = dt;
    e.code = code;
    uint8_t *buf;
    size_t len = pack_batch(&e, &buf);
    ck_assert_int_eq(ip_batch_decode(&b, buf, len), 1);
    ck_assert_uint_eq(b.rec.events->n_dt, n);
    ck_assert_uint_eq(b.rec.events->n_code, n);
    for (size_t i = 0; i < n; i++) {
      ck_assert_uint_eq(b.rec.events->dt[i], dt[i]);
      ck_assert_uint_eq(b.rec.events->code[i], code[i]);
    }
    free(buf);
    free(dt);
    free(code);
  }
  ip_batch_buf_free(&b);
}
END_TEST

START_TEST(leaves_the_rest_to_protobuf_c) {
  ip_batch_buf b;
  ip_batch_buf_init(&b);
  uint64_t dt[3] = {1, 300, 5};
  uint32_t code[3] = {8, 9, 16};
  Inclprof__EventBatch e = INCLPROF__EVENT_BATCH__INIT;
  e.tid = 7;
  e.seq = 1;
  e.base_tick = 1000;
  e.n_dt = e.n_code = 3;
  e.dt = dt;
  e.code = code;
  uint8_t *buf;
  size_t len = pack_batch(&e, &buf);
  ck_assert_int_eq(ip_batch_decode(&b, buf, len), 1);
  /* every cut is either refused or (never) mis-read as a complete batch */
  uint32_t tid;
  for (size_t cut = 0; cut < len; cut++) {
    ck_assert_int_eq(ip_batch_decode(&b, buf, cut), 0);
    ck_assert_int_eq(ip_batch_peek(buf, cut, &tid), 0);
  }
  /* an unknown field appended to the batch (a newer minor version) */
  uint8_t *more = malloc(len + 2);
  ck_assert_ptr_nonnull(more);
  memcpy(more, buf, len);
  more[1] = (uint8_t)(buf[1] + 2); /* the batch's length (one byte here) */
  more[len] = 15u << 3;            /* field 15, varint */
  more[len + 1] = 42;
  ck_assert_int_eq(ip_batch_decode(&b, more, len + 2), 0);
  ck_assert_int_eq(ip_batch_peek(more, len + 2, &tid), 0);
  Inclprof__Record *r = inclprof__record__unpack(NULL, len + 2, more);
  ck_assert_ptr_nonnull(r); /* protobuf-c keeps it, with the field skipped */
  ck_assert_uint_eq(r->events->n_dt, 3);
  inclprof__record__free_unpacked(r, NULL);
  /* another record type */
  Inclprof__Thread th = INCLPROF__THREAD__INIT;
  th.tid = 3;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_THREAD;
  rec.thread = &th;
  uint8_t tb[64];
  size_t tl = inclprof__record__pack(&rec, tb);
  ck_assert_int_eq(ip_batch_decode(&b, tb, tl), 0);
  ck_assert_int_eq(ip_batch_peek(tb, tl, &tid), 0);
  /* a batch without its required base_tick: refused by both */
  static const uint8_t no_base[] = {6u << 3 | 2, 4, 1u << 3, 7, 2u << 3, 1};
  ck_assert_int_eq(ip_batch_decode(&b, no_base, sizeof no_base), 0);
  ck_assert_int_eq(ip_batch_peek(no_base, sizeof no_base, &tid), 0);
  ck_assert_ptr_null(inclprof__record__unpack(NULL, sizeof no_base, no_base));
  free(more);
  free(buf);
  ip_batch_buf_free(&b);
}
END_TEST

/* Writes v as a varint at out; returns its length. */
static size_t put_varint(uint8_t *out, size_t v) {
  size_t k = 0;
  for (; v >= 0x80; v >>= 7)
    out[k++] = (uint8_t)(v | 0x80);
  out[k++] = (uint8_t)v;
  return k;
}

/* A batch {tid 7, seq 1, base_tick 5, dt: the n bytes at dt, code {1}}. */
static size_t batch_with_dt(uint8_t *out, const uint8_t *dt, size_t n) {
  static const uint8_t head[] = {1u << 3, 7, 2u << 3, 1, 3u << 3, 5, 4u << 3 | 2};
  uint8_t body[400];
  size_t k = sizeof head;
  memcpy(body, head, k);
  k += put_varint(body + k, n);
  memcpy(body + k, dt, n);
  k += n;
  body[k++] = 5u << 3 | 2;
  body[k++] = 1;
  body[k++] = 1;
  out[0] = 6u << 3 | 2;
  size_t len = 1 + put_varint(out + 1, k);
  memcpy(out + len, body, k);
  return len + k;
}

START_TEST(peek_promises_a_decoding) {
  ip_batch_buf b;
  ip_batch_buf_init(&b);
  uint8_t dt[300] = {0}, rec[400];
  uint64_t seed = 0x2545f4914f6cdd1dull;
  uint32_t tid;
  /* random arrays, from few to mostly continuation bytes, up to several
   * times the 64 bytes peek checks at once: peek says 1 exactly when
   * protobuf-c decodes the batch (then the fast decoder does too) */
  int accepted = 0;
  for (int round = 0; round < 4000; round++) {
    size_t n = rnd(&seed) % sizeof dt;
    uint32_t dense = 8 + rnd(&seed) % 8; /* continuation bytes: dense in 16 */
    for (size_t i = 0; i < n; i++)
      dt[i] = (uint8_t)(rnd(&seed) % 16 < dense ? 0x80 | rnd(&seed) : rnd(&seed) & 0x7f);
    size_t len = batch_with_dt(rec, dt, n);
    Inclprof__Record *ref = inclprof__record__unpack(NULL, len, rec);
    int peek = ip_batch_peek(rec, len, &tid);
    ck_assert_int_eq(peek, ref != NULL);
    if (peek) {
      accepted++;
      ck_assert_uint_eq(tid, 7);
      ck_assert_int_eq(ip_batch_decode(&b, rec, len), 1);
      ck_assert_uint_eq(b.rec.events->n_dt, ref->events->n_dt);
      inclprof__record__free_unpacked(ref, NULL);
    }
  }
  ck_assert_int_gt(accepted, 100);
  ck_assert_int_lt(accepted, 3900);
  /* a code above 32 bits: peek 1, the fast decoder leaves it to protobuf-c */
  static const uint8_t big_code[] = {6u << 3 | 2, 16,   1u << 3,     7,    2u << 3,     1,
                                     3u << 3,     5,    5u << 3 | 2, 6,    0xff,        0xff,
                                     0xff,        0xff, 0xff,        0x01, 4u << 3 | 2, 0};
  ck_assert_int_eq(ip_batch_peek(big_code, sizeof big_code, &tid), 1);
  ck_assert_int_eq(ip_batch_decode(&b, big_code, sizeof big_code), 0);
  Inclprof__Record *r = inclprof__record__unpack(NULL, sizeof big_code, big_code);
  ck_assert_ptr_nonnull(r);
  ck_assert_uint_eq(r->events->tid, 7);
  ck_assert_uint_eq(r->events->n_code, 1);
  inclprof__record__free_unpacked(r, NULL);
  ip_batch_buf_free(&b);
}
END_TEST

int main(void) {
  Suite *s = suite_create("batch_decode");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, agrees_with_protobuf_c);
  tcase_add_test(tc, short_varints_agree);
  tcase_add_test(tc, leaves_the_rest_to_protobuf_c);
  tcase_add_test(tc, peek_promises_a_decoding);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
