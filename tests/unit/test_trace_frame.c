/* test_trace_frame.c - the frame encoder (trace/trace_frame.c), the one frame
 * reader (trace/frame_read.c: each fault it names, the search after damage,
 * its CRC against zlib's) and the streaming reader built on it
 * (convert/read/trace_reader.c): round trips of random record streams, and
 * damaged files (truncation at every byte, bit flips, bad preambles) that
 * must end in a one-line error with an offset, never a crash; and the
 * hand-written Function frame equal to protobuf-c's. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "frame_read.h"
#include "trace_frame.h"
#include "read/trace_reader.h"
#include "check_main.h"

#define MAX_RECS 64
#define MAX_EV   300

/* One generated record and the storage behind its pointers. */
struct gen {
  Inclprof__Record rec;
  Inclprof__EventBatch batch;
  Inclprof__Function fn;
  Inclprof__Gap gap;
  uint64_t dt[MAX_EV];
  uint32_t code[MAX_EV];
  char name[32];
};

static uint64_t rng_state;
static uint64_t rnd(void) { /* xorshift64*: reproducible per seed */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ull;
}

static void make_record(struct gen *g) {
  inclprof__record__init(&g->rec);
  switch (rnd() % 3) {
  case 0:
    inclprof__event_batch__init(&g->batch);
    g->batch.tid = (uint32_t)rnd();
    g->batch.seq = rnd() % 1000;
    g->batch.base_tick = rnd();
    g->batch.n_dt = g->batch.n_code = rnd() % MAX_EV;
    for (size_t i = 0; i < g->batch.n_dt; i++) {
      g->dt[i] = rnd() >> (rnd() % 64);
      g->code[i] = (uint32_t)(rnd() >> (rnd() % 32));
    }
    g->batch.dt = g->dt;
    g->batch.code = g->code;
    g->rec.body_case = INCLPROF__RECORD__BODY_EVENTS;
    g->rec.events = &g->batch;
    break;
  case 1:
    inclprof__function__init(&g->fn);
    g->fn.gid = (uint32_t)(rnd() % 100000) + 1;
    snprintf(g->name, sizeof g->name, "fn_%llx", (unsigned long long)rnd());
    g->fn.name = g->name;
    g->fn.has_addr = 1;
    g->fn.addr = rnd();
    g->rec.body_case = INCLPROF__RECORD__BODY_FUNCTION;
    g->rec.function = &g->fn;
    break;
  default:
    inclprof__gap__init(&g->gap);
    g->gap.tid = (uint32_t)rnd();
    g->gap.start_tick = rnd();
    g->gap.end_tick = g->gap.start_tick + rnd() % 1000;
    g->rec.body_case = INCLPROF__RECORD__BODY_GAP;
    g->rec.gap = &g->gap;
  }
}

/* Writes preamble + frames of recs[0..n) into path; returns the file size. */
static size_t write_stream(const char *path, struct gen *recs, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  size_t total = fwrite(pre, 1, sizeof pre, f);
  for (size_t i = 0; i < n; i++) {
    size_t max = ip_frame_max_size(&recs[i].rec);
    uint8_t *buf = malloc(max);
    ck_assert_ptr_nonnull(buf);
    size_t len = ip_frame_encode(&recs[i].rec, buf);
    ck_assert_uint_le(len, max);
    total += fwrite(buf, 1, len, f);
    free(buf);
  }
  ck_assert_int_eq(fclose(f), 0);
  return total;
}

static int same_record(const Inclprof__Record *a, const Inclprof__Record *b) {
  size_t la = inclprof__record__get_packed_size(a), lb = inclprof__record__get_packed_size(b);
  if (la != lb)
    return 0;
  uint8_t *pa = malloc(la + 1), *pb = malloc(lb + 1);
  ck_assert_ptr_nonnull(pa);
  ck_assert_ptr_nonnull(pb);
  inclprof__record__pack(a, pa);
  inclprof__record__pack(b, pb);
  int same = memcmp(pa, pb, la) == 0;
  free(pa);
  free(pb);
  return same;
}

/* Reads path to the end; returns records read; *rc = last ip_reader_next result. */
static uint64_t last_skips; /* damaged stretches the last read_all passed over */

static size_t read_all(const char *path, struct gen *expect, int *rc, char *err, size_t errlen) {
  ip_reader *r = ip_reader_open(path, err, errlen);
  if (!r) {
    *rc = -2;
    return 0;
  }
  size_t n = 0;
  Inclprof__Record *rec;
  while ((*rc = ip_reader_next(r, &rec, err, errlen)) == 1) {
    if (expect)
      ck_assert_msg(same_record(rec, &expect[n].rec), "record %zu differs", n);
    n++;
  }
  if (*rc == -1)
    ck_assert_int_eq(ip_reader_next(r, &rec, err, errlen), -1);
  last_skips = ip_reader_skipped(r)->regions;
  ip_reader_close(r);
  return n;
}

static char tmp_path[64];
static void make_tmp(void) {
  strcpy(tmp_path, "/tmp/ip-frame-XXXXXX");
  int fd = mkstemp(tmp_path);
  ck_assert_int_ge(fd, 0);
  close(fd);
}
static void drop_tmp(void) { unlink(tmp_path); }

START_TEST(random_streams_round_trip) {
  static struct gen recs[MAX_RECS];
  for (uint64_t seed = 1; seed <= 50; seed++) {
    rng_state = seed * 0x9E3779B97F4A7C15ull;
    size_t n = rnd() % MAX_RECS;
    for (size_t i = 0; i < n; i++)
      make_record(&recs[i]);
    write_stream(tmp_path, recs, n);
    int rc;
    char err[256] = "";
    ck_assert_uint_eq(read_all(tmp_path, recs, &rc, err, sizeof err), n);
    ck_assert_msg(rc == 0, "seed %llu: %s", (unsigned long long)seed, err);
  }
}
END_TEST

START_TEST(truncation_at_every_byte) {
  static struct gen recs[4];
  rng_state = 42;
  for (int i = 0; i < 4; i++)
    make_record(&recs[i]);
  recs[0].batch.n_dt = 0; /* keep the file small whatever the draw */
  size_t size = write_stream(tmp_path, recs, 4);
  FILE *f = fopen(tmp_path, "rb");
  ck_assert_ptr_nonnull(f);
  uint8_t *whole = malloc(size);
  ck_assert_ptr_nonnull(whole);
  ck_assert_uint_eq(fread(whole, 1, size, f), size);
  fclose(f);
  /* Frame boundaries: cutting exactly there is a clean (shorter) file. */
  size_t bound[5] = {IP_TRACE_PREAMBLE_LEN};
  for (int i = 0; i < 4; i++)
    bound[i + 1] = bound[i] + ip_frame_max_size(&recs[i].rec);
  for (size_t cut = 0; cut < size; cut++) {
    f = fopen(tmp_path, "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(whole, 1, cut, f);
    fclose(f);
    int rc;
    char err[256] = "";
    size_t n = read_all(tmp_path, recs, &rc, err, sizeof err);
    if (cut < IP_TRACE_PREAMBLE_LEN) {
      ck_assert_int_eq(rc, -2);
      ck_assert_ptr_nonnull(strstr(err, tmp_path));
      continue;
    }
    int at_boundary = 0;
    for (int i = 0; i < 5; i++)
      if (cut == bound[i]) {
        at_boundary = 1;
        ck_assert_uint_eq(n, (size_t)i);
      }
    ck_assert_int_eq(rc, at_boundary ? 0 : -1);
    if (!at_boundary) {
      ck_assert_ptr_nonnull(strstr(err, "offset "));
      ck_assert_msg(strstr(err, "truncated") != NULL, "cut %zu: %s", cut, err);
    }
  }
  free(whole);
}
END_TEST

/* Every flipped bit is found.  In the last record it ends the stream with
 * the offset; in an earlier one the reader skips that record alone and reads
 * the others. */
START_TEST(bit_flips_are_reported_with_offset) {
  static struct gen recs[3];
  rng_state = 7;
  for (int i = 0; i < 3; i++)
    make_record(&recs[i]);
  size_t size = write_stream(tmp_path, recs, 3);
  FILE *f = fopen(tmp_path, "rb");
  ck_assert_ptr_nonnull(f);
  uint8_t *whole = malloc(size);
  ck_assert_ptr_nonnull(whole);
  ck_assert_uint_eq(fread(whole, 1, size, f), size);
  fclose(f);
  for (size_t at = IP_TRACE_PREAMBLE_LEN; at < size; at++) {
    for (int bit = 0; bit < 8; bit += 3) {
      whole[at] ^= (uint8_t)(1u << bit);
      f = fopen(tmp_path, "wb");
      ck_assert_ptr_nonnull(f);
      fwrite(whole, 1, size, f);
      fclose(f);
      whole[at] ^= (uint8_t)(1u << bit);
      int rc;
      char err[256] = "";
      size_t n = read_all(tmp_path, NULL, &rc, err, sizeof err);
      ck_assert_msg(rc == -1 || last_skips == 1, "flip at %zu bit %d not detected", at, bit);
      if (rc == -1)
        ck_assert_ptr_nonnull(strstr(err, "offset "));
      else
        ck_assert_msg(n == 2, "flip at %zu bit %d: %zu records read around it, not 2", at, bit, n);
    }
  }
  free(whole);
}
END_TEST

static void write_bytes(const char *bytes, size_t n) {
  FILE *f = fopen(tmp_path, "wb");
  ck_assert_ptr_nonnull(f);
  fwrite(bytes, 1, n, f);
  fclose(f);
}

START_TEST(bad_preambles_are_refused) {
  char err[256];
  write_bytes("", 0);
  ck_assert_ptr_null(ip_reader_open(tmp_path, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "empty"));
  write_bytes("hello world, not a trace", 24);
  ck_assert_ptr_null(ip_reader_open(tmp_path, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "bad magic"));
  uint8_t pre[IP_TRACE_PREAMBLE_LEN];
  ip_frame_preamble(pre);
  pre[8] = 9;
  write_bytes((const char *)pre, sizeof pre);
  ck_assert_ptr_null(ip_reader_open(tmp_path, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "unsupported format version 9"));
  ck_assert_ptr_null(ip_reader_open("/nonexistent/x.ipb", err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.ipb: cannot open"));
  /* A newer minor version is accepted. */
  ip_frame_preamble(pre);
  pre[10] = 3;
  write_bytes((const char *)pre, sizeof pre);
  ip_reader *r = ip_reader_open(tmp_path, err, sizeof err);
  ck_assert_ptr_nonnull(r);
  ck_assert_uint_eq(ip_reader_minor(r), 3);
  Inclprof__Record *rec;
  ck_assert_int_eq(ip_reader_next(r, &rec, err, sizeof err), 0);
  ck_assert_uint_eq(ip_reader_offset(r), IP_TRACE_PREAMBLE_LEN);
  ip_reader_close(r);
}
END_TEST

START_TEST(huge_length_is_refused) {
  uint8_t bytes[IP_TRACE_PREAMBLE_LEN + 10];
  ip_frame_preamble(bytes);
  memset(bytes + IP_TRACE_PREAMBLE_LEN, 0xff, 9);
  bytes[IP_TRACE_PREAMBLE_LEN + 9] = 0x01;
  write_bytes((const char *)bytes, sizeof bytes);
  char err[256];
  int rc;
  read_all(tmp_path, NULL, &rc, err, sizeof err);
  ck_assert_int_eq(rc, -1);
  ck_assert_msg(strstr(err, "offset 12: bad frame length") != NULL, "%s", err);
}
END_TEST

/* The CRC every writer and reader of frames uses is zlib's CRC-32, the
 * checksum docs/trace-format.md names, at every length around the sizes
 * libdeflate handles in different ways. */
START_TEST(crc_is_zlibs) {
  static uint8_t buf[70000];
  rng_state = 99;
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)rnd();
  for (size_t n = 0; n < sizeof buf; n = n < 300 ? n + 1 : n * 3 / 2)
    ck_assert_uint_eq(ip_frame_crc(buf, n), (uint32_t)crc32(0L, buf, (uInt)n));
}
END_TEST

/* Each fault of the frame reader, at the bytes that cause it. */
START_TEST(frame_reader_names_each_fault) {
  struct gen g;
  rng_state = 5;
  make_record(&g);
  uint8_t buf[8192];
  size_t n = ip_frame_encode(&g.rec, buf);
  ip_frame_view f;
  ck_assert_int_eq(ip_frame_read(buf, n, &f), IP_FRAME_OK);
  ck_assert_uint_eq(f.size, n);
  ck_assert_uint_eq(f.record_len, inclprof__record__get_packed_size(&g.rec));
  ck_assert_ptr_eq(f.record + f.record_len + IP_FRAME_CRC_LEN, buf + n);
  for (size_t cut = 0; cut < n; cut++) {
    ip_frame_fault want =
        cut < (size_t)(f.record - buf) ? IP_FRAME_CUT_LENGTH : IP_FRAME_CUT_RECORD;
    ck_assert_int_eq(ip_frame_read(buf, cut, &f), want);
  }
  buf[n - 1] ^= 1;
  ck_assert_int_eq(ip_frame_read(buf, n, &f), IP_FRAME_BAD_CRC);
  ck_assert_int_eq(ip_frame_next(buf, n, &f), IP_FRAME_OK); /* the CRC left unchecked */
  ck_assert_str_eq(ip_frame_fault_text(IP_FRAME_BAD_CRC), "crc mismatch (corrupted record)");
  uint8_t longer[12];
  memset(longer, 0xff, sizeof longer);
  ck_assert_int_eq(ip_frame_read(longer, sizeof longer, &f), IP_FRAME_LONG_LENGTH);
  uint8_t huge[5];
  const uint8_t *e = ip_put_varint(huge, IP_FRAME_MAX_RECORD + 1ull);
  ck_assert_int_eq(ip_frame_read(huge, (size_t)(e - huge), &f), IP_FRAME_HUGE);
  e = ip_put_varint(huge, IP_FRAME_MAX_RECORD);
  ck_assert_int_eq(ip_frame_read(huge, (size_t)(e - huge), &f), IP_FRAME_CUT_RECORD);
}
END_TEST

/* After damage the search finds the first frame followed by another (or by
 * the end of the file), not a stray byte that looks like a length. */
START_TEST(frame_search_after_damage) {
  static struct gen recs[3];
  rng_state = 11;
  uint8_t buf[3 * 8192 + 16];
  size_t at[4] = {7};
  memset(buf, 0x02, at[0]); /* garbage: each byte could start a 2-byte record */
  for (int i = 0; i < 3; i++) {
    make_record(&recs[i]);
    at[i + 1] = at[i] + ip_frame_encode(&recs[i].rec, buf + at[i]);
  }
  ck_assert_uint_eq(ip_frame_find(buf, at[3], at[3], 1), at[0]);
  ck_assert_uint_eq(ip_frame_find(buf + 1, at[3] - 1, at[3] - 1, 1), at[0] - 1);
  /* A frame that ends the bytes counts only at the end of the file. */
  ck_assert_uint_eq(ip_frame_find(buf + at[2], at[3] - at[2], at[3] - at[2], 1), 0);
  ck_assert_uint_eq(ip_frame_find(buf + at[2], at[3] - at[2], at[3] - at[2], 0), at[3] - at[2]);
  /* Nothing before scan_to: scan_to. */
  ck_assert_uint_eq(ip_frame_find(buf, at[3], at[0], 1), at[0]);
}
END_TEST

/* protobuf-c's frame of rec: its generic packer, framed as the trace is. */
static size_t generic_frame(const Inclprof__Record *rec, uint8_t *out) {
  size_t body = inclprof__record__get_packed_size(rec);
  uint8_t *o = ip_put_varint(out, body);
  size_t packed = inclprof__record__pack(rec, o);
  ck_assert_uint_eq(packed, body);
  return (size_t)(ip_frame_seal(o, packed) - out);
}

/* A value of about `bits` bits, so that varints of every length occur. */
static uint64_t rnd_bits(unsigned bits) {
  return bits >= 64 ? rnd() : rnd() & ((1ull << bits) - 1);
}

/* A varint's length, computed without a loop, is the number of bytes
 * ip_put_varint writes (a byte per 7 bits), at every bit count: 0, each
 * power of two, one below and one above it, and the largest.  (Frames with
 * numbers of every length are protobuf-c's, byte for byte: below.) */
START_TEST(varint_len_is_the_bytes_written) {
  uint8_t out[16];
  for (unsigned b = 0; b < 64; b++)
    for (int d = -1; d <= 1; d++) {
      uint64_t v = (1ull << b) + (uint64_t)(int64_t)d;
      size_t n = (size_t)(ip_put_varint(out, v) - out);
      ck_assert_uint_eq(ip_varint_len(v), n);
    }
  ck_assert_uint_eq(ip_varint_len(0), 1);
  ck_assert_uint_eq(ip_varint_len(127), 1);
  ck_assert_uint_eq(ip_varint_len(128), 2);
  ck_assert_uint_eq(ip_varint_len(UINT64_MAX), 10);
  ck_assert_uint_eq((size_t)(ip_put_varint(out, UINT64_MAX) - out), 10);
}
END_TEST

/* The hand-written Function frame is protobuf-c's, byte for byte: every
 * combination of fields present and absent, numbers of every varint
 * length (0 and the largest too), strings absent, empty, of 1 byte, and
 * long enough for 2- and 3-byte lengths and records. */
START_TEST(function_frame_is_protobuf_cs) {
  static char text[3][20000];
  static uint8_t hand[70000], generic[70000];
  static const size_t lens[] = {0, 1, 5, 126, 127, 128, 1000, 16383, 16384, 19999};
  rng_state = 21;
  for (int t = 0; t < 3; t++)
    for (size_t i = 0; i < sizeof text[t] - 1; i++)
      text[t][i] = (char)(' ' + rnd() % 90);
  for (unsigned k = 0; k < 4000; k++) {
    Inclprof__Function f = INCLPROF__FUNCTION__INIT;
    unsigned present = k < 1024 ? k : (unsigned)rnd();
    unsigned bits = (unsigned)(rnd() % 66);
    f.gid = (uint32_t)rnd_bits(bits > 32 ? 32 : bits);
    f.has_module = present & 1, f.module = (uint32_t)rnd_bits(bits > 32 ? 32 : bits);
    f.has_id = !!(present & 2), f.id = k % 7 == 0 ? UINT64_MAX : rnd_bits(bits);
    f.has_line = !!(present & 4), f.line = k % 5 == 0 ? UINT32_MAX : (uint32_t)rnd();
    f.has_size = !!(present & 8), f.size = (uint32_t)rnd_bits(bits > 32 ? 32 : bits);
    f.has_flags = !!(present & 16), f.flags = (uint32_t)rnd_bits(9);
    f.has_addr = !!(present & 32), f.addr = rnd_bits(bits);
    char *s[3];
    for (int t = 0; t < 3; t++) {
      s[t] = (present & (64u << t)) ? text[t] + sizeof text[t] - 1 - lens[rnd() % 10] : NULL;
    }
    f.name = s[0], f.pretty = s[1], f.file = s[2];
    if (k % 11 == 0)
      f.file = f.name; /* two fields with the same string */
    Inclprof__Record rec = INCLPROF__RECORD__INIT;
    rec.body_case = INCLPROF__RECORD__BODY_FUNCTION;
    rec.function = &f;
    size_t want = generic_frame(&rec, generic);
    ck_assert_uint_eq(ip_frame_max_size(&rec), want);
    ck_assert_uint_eq(ip_frame_encode(&rec, hand), want);
    ck_assert_msg(!memcmp(hand, generic, want), "function frame %u differs from protobuf-c's", k);
    ip_function_lens l;
    ck_assert_uint_eq(ip_function_frame_size(&f, &l), want);
    memset(hand, 0, want);
    ck_assert_uint_eq(ip_function_frame_put(&f, &l, hand), want);
    ck_assert(!memcmp(hand, generic, want));
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("trace_frame");
  TCase *tc = tcase_create("frames");
  tcase_add_checked_fixture(tc, make_tmp, drop_tmp);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, random_streams_round_trip);
  tcase_add_test(tc, truncation_at_every_byte);
  tcase_add_test(tc, bit_flips_are_reported_with_offset);
  tcase_add_test(tc, bad_preambles_are_refused);
  tcase_add_test(tc, huge_length_is_refused);
  tcase_add_test(tc, crc_is_zlibs);
  tcase_add_test(tc, frame_reader_names_each_fault);
  tcase_add_test(tc, frame_search_after_damage);
  tcase_add_test(tc, function_frame_is_protobuf_cs);
  tcase_add_test(tc, varint_len_is_the_bytes_written);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
