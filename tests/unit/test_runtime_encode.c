/* test_runtime_encode.c - runtime/produce/flush.c's ip_encode_batch against the
 * format's own definition (docs/trace-format.md, EventBatch): the batch
 * written to a real trace and read back by the converter's reader (which
 * checks the CRC) has dt[i] = (tick[i] - tick[i-1]) << 1 | T and
 * code[i] = gid << 3 | kind for every kind of event - ENTER..RET of 300
 * functions (one- and two-byte codes, more functions than the encoder's
 * cache has entries), indirect calls, samples (with their addresses), control events -, with
 * intervals of one to four bytes, a tick older than its predecessor (given
 * its predecessor's), empty slots left out, and every arg cleared after;
 * a coroutine frame's slot names the ENTER event that follows it (samples
 * aside) in coroutine_frame, and is dropped before any other event; a
 * pointer call's slot names the event after it in pointer_calls, and a
 * buffer of pointer calls alone is a batch of them with no event. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "produce/produce.h"
#include "check_main.h"
#include "read/trace_reader.h"

enum { FNS = 300, N = 5000 };
static struct inclprof_fn d[FNS];
static const struct inclprof_fn *fns[FNS];
static struct inclprof_tu tu = {INCLPROF_ABI_VERSION, FNS, fns, __FILE__, {0}};
static char names[FNS][16];
static char dir[] = "/tmp/ip_encode_XXXXXX";

__attribute__((noinline)) static void target(void) {}

/* A fresh runtime recording into dir (each test runs in its own process). */
static void start(void) {
  ck_assert_ptr_nonnull(mkdtemp(dir));
  setenv("INCLPROF_OUTPUT", dir, 1);
  setenv("INCLPROF_TRANSITIONS", "none", 1);
  ip_settings_reread();
  for (int i = 0; i < FNS; i++) {
    snprintf(names[i], sizeof names[i], "f%d", i);
    d[i] = (struct inclprof_fn){(uint64_t)i + 1,
                                names[i],
                                names[i],
                                __FILE__,
                                (uint32_t)i + 1,
                                5,
                                INCLPROF_FN_INSTRUMENTED,
                                0,
                                i == 7 ? (const void *)target : NULL};
    fns[i] = &d[i];
  }
  __inclprof_register_tu(&tu);
  ck_assert_int_eq(atomic_load(&ip_st.init_state), 1);
}

/* The EventBatch of seq in the trace of dir; its record is kept in *keep. */
static Inclprof__EventBatch *read_batch(uint64_t seq, ip_reader **keep) {
  DIR *dd = opendir(dir);
  ck_assert_ptr_nonnull(dd);
  char path[512] = "";
  for (const struct dirent *e; (e = readdir(dd));)
    if (strstr(e->d_name, ".ipb"))
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
  closedir(dd);
  char err[512];
  ip_reader *r = ip_reader_open(path, err, sizeof err);
  ck_assert_msg(r != NULL, "%s", err);
  Inclprof__Record *rec;
  int rc;
  while ((rc = ip_reader_next(r, &rec, err, sizeof err)) == 1)
    if (rec->body_case == INCLPROF__RECORD__BODY_EVENTS && rec->events->seq == seq) {
      *keep = r;
      return rec->events;
    }
  ck_abort_msg("no batch %llu in %s (%s)", (unsigned long long)seq, path, rc < 0 ? err : "end");
  return NULL;
}

/* Removes dir and the trace in it (the open descriptor keeps the file for
 * the runtime's exit records). */
static void finish(void) {
  DIR *dd = opendir(dir);
  ck_assert_ptr_nonnull(dd);
  char path[512];
  for (const struct dirent *e; (e = readdir(dd));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) { /* the calibration cache too */
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  closedir(dd);
  rmdir(dir);
}

static uint64_t rnd_state = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void) {
  rnd_state ^= rnd_state << 13;
  rnd_state ^= rnd_state >> 7;
  rnd_state ^= rnd_state << 17;
  return rnd_state;
}

/* The gid of a descriptor now (no unit was unloaded: the same at any tick). */
static uint32_t gid_now(const struct inclprof_fn *fn) {
  int fixed = 1;
  return ip_gid_of_desc(fn, UINT64_MAX, 0, &fixed);
}

/* The file's code of a filled slot's arg, by the format's definition. */
static uint32_t code_by_definition(uint64_t a, uint32_t target_gid) {
  unsigned kind = (unsigned)(a & 7);
  if (kind <= IP_K_RET)
    return gid_now((const struct inclprof_fn *)(uintptr_t)(a & ~7ull)) << 3 | kind;
  if (kind == IP_K_CALL_IND)
    return target_gid << 3 | INCLPROF__EVENT_KIND__EV_CALL;
  if (kind == IP_K_RET_IND)
    return target_gid << 3 | INCLPROF__EVENT_KIND__EV_RET;
  if (kind == IP_K_SAMPLE)
    return (uint32_t)((a >> 3) & 1) << 3 | INCLPROF__EVENT_KIND__EV_SAMPLE;
  return (uint32_t)(a >> 3); /* IP_K_CONTROL */
}

/* Slot i of a made-up buffer: every kind, intervals of 0 to about 2^21
 * ticks (dt of one to four bytes), a transition on a third of the events,
 * one event in 50 older than the one before, one slot in 20 empty. */
static struct ip_event made_up(uint64_t *tick) {
  uint64_t r = rnd();
  unsigned size = (unsigned)(r % 8);
  *tick += size == 0   ? 100 + r / 8 % 8000
           : size == 1 ? 10000 + r / 8 % 1000000
           : size == 2 ? 0
                       : r / 8 % 60;
  uint64_t t = r / 64 % 50 == 0 ? *tick - 300 : *tick;
  uint64_t t_bit = r / 4096 % 3 == 0 ? IP_T_BIT : 0;
  unsigned what = (unsigned)(r / (1u << 20) % 20), bit = (unsigned)(r / (1u << 30) % 2);
  uint64_t arg = what == 0   ? 0
                 : what == 1 ? (uint64_t)(uintptr_t)target << 3 | IP_K_CALL_IND
                 : what == 2 ? (uint64_t)(uintptr_t)target << 3 | IP_K_RET_IND
                 : what == 3 ? (0x7f0000000000ull + r / 16 % (1ull << 40)) << 4 |
                                   (uint64_t)bit << 3 | IP_K_SAMPLE
                 : what == 4 ? (uint64_t)INCLPROF__EVENT_KIND__EV_PAUSE << 3 | IP_K_CONTROL
                             : (uint64_t)(uintptr_t)&d[r / 8192 % FNS] | what % 4;
  return (struct ip_event){t | t_bit, arg};
}

START_TEST(every_kind_and_size_reads_back_as_defined) {
  start();
  static struct ip_event ev[N];
  static uint64_t want_dt[N];
  static uint32_t want_code[N];
  static uint64_t want_addr[N]; /* per sample: its address, 0 in the runtime */
  size_t want_samples = 0;
  uint32_t target_gid = gid_now(&d[7]); /* the indirect target's function */
  uint64_t tick = 1000;
  for (size_t i = 0; i < N; i++)
    ev[i] = made_up(&tick);
  ev[0].arg = 0; /* the batch starts at the first filled slot */
  size_t want_n = 0;
  uint64_t prev = 0, base = 0;
  for (size_t i = 0; i < N; i++) {
    if (!ev[i].arg)
      continue;
    uint64_t t = ev[i].tick & ~IP_T_BIT;
    if (!want_n)
      base = prev = t;
    uint64_t kept = t < prev ? prev : t; /* ticks never go backwards */
    want_dt[want_n] = (kept - prev) << 1 | ev[i].tick >> 63;
    want_code[want_n++] = code_by_definition(ev[i].arg, target_gid);
    if ((ev[i].arg & 7) == IP_K_SAMPLE)
      want_addr[want_samples++] = (ev[i].arg >> 3) & 1 ? 0 : ev[i].arg >> 4;
    prev = kept;
  }
  uint8_t *scratch = malloc(IP_SCRATCH_BYTES);
  ck_assert_ptr_nonnull(scratch);
  struct ip_kev_list kl = {NULL, 0, 0, 0, 0};
  uint64_t events0 = atomic_load(&ip_st.events);
  ip_encode_batch(scratch, IP_SCRATCH_BYTES, 42, 7, ev, N, &kl, 0);
  ck_assert_uint_eq(atomic_load(&ip_st.events) - events0, want_n);
  for (size_t i = 0; i < N; i++)
    ck_assert_msg(ev[i].arg == 0, "slot %zu not cleared", i);

  ip_reader *r = NULL;
  Inclprof__EventBatch *b = read_batch(7, &r);
  ck_assert_uint_eq(b->tid, 42);
  ck_assert_uint_eq(b->base_tick, base);
  ck_assert_uint_eq(b->n_dt, want_n);
  ck_assert_uint_eq(b->n_code, want_n);
  for (size_t i = 0; i < want_n; i++) {
    ck_assert_msg(b->dt[i] == want_dt[i], "dt[%zu] = %llu, want %llu", i,
                  (unsigned long long)b->dt[i], (unsigned long long)want_dt[i]);
    ck_assert_msg(b->code[i] == want_code[i], "code[%zu] = %u, want %u", i, b->code[i],
                  want_code[i]);
  }
  ck_assert_uint_gt(want_samples, 0);
  ck_assert_uint_eq(b->n_sample_addr, want_samples);
  for (size_t i = 0; i < want_samples; i++)
    ck_assert_msg(b->sample_addr[i] == want_addr[i], "sample_addr[%zu] = %llx, want %llx", i,
                  (unsigned long long)b->sample_addr[i], (unsigned long long)want_addr[i]);
  ip_reader_close(r);
  free(scratch);
  finish();
}
END_TEST

START_TEST(a_batch_of_empty_slots_writes_nothing) {
  start();
  struct ip_event ev[4] = {{5, 0}, {6, 0}, {7, 0}, {8, 0}};
  uint8_t *scratch = malloc(IP_SCRATCH_BYTES);
  ck_assert_ptr_nonnull(scratch);
  struct ip_kev_list kl = {NULL, 0, 0, 0, 0};
  uint64_t batches0 = atomic_load(&ip_st.batches);
  ip_encode_batch(scratch, IP_SCRATCH_BYTES, 1, 0, ev, 4, &kl, 0);
  ck_assert_uint_eq(atomic_load(&ip_st.batches), batches0);
  free(scratch);
  finish();
}
END_TEST

static uint64_t frame_slot(uint64_t frame) { return frame << 6 | IP_CORO_FRAME_TAG; }

/* The arg of an ENTER of d[i] (kind 0: the descriptor alone). */
static uint64_t enter_of(int i) { return (uint64_t)(uintptr_t)&d[i]; }

START_TEST(a_coroutine_frame_names_the_enter_event_after_it) {
  start();
  const uint64_t f1 = 0x7f1234560010ull | INCLPROF_CORO_START, f2 = 0x55aa00001000ull;
  struct ip_event ev[9] = {
      {100, enter_of(0)},
      {0, frame_slot(f1)},
      {110, enter_of(1)}, /* event 1: f1 */
      {0, frame_slot(f2)},
      {115, 0x7f0000001000ull << 4 | IP_K_SAMPLE}, /* a signal handler's sample */
      {120, enter_of(2)},                          /* event 3: f2 */
      {0, frame_slot(0x1000)},
      {130, (uint64_t)(uintptr_t)&d[2] | IP_K_EXIT}, /* not an ENTER: no frame */
      {0, frame_slot(0x2000)},                       /* nothing after it */
  };
  uint8_t *scratch = malloc(IP_SCRATCH_BYTES);
  ck_assert_ptr_nonnull(scratch);
  struct ip_kev_list kl = {NULL, 0, 0, 0, 0};
  uint64_t events0 = atomic_load(&ip_st.events);
  ip_encode_batch(scratch, IP_SCRATCH_BYTES, 42, 3, ev, 9, &kl, 0);
  ck_assert_uint_eq(atomic_load(&ip_st.events) - events0, 5);
  for (size_t i = 0; i < 9; i++)
    ck_assert_msg(ev[i].arg == 0, "slot %zu not cleared", i);
  ip_reader *r = NULL;
  Inclprof__EventBatch *b = read_batch(3, &r);
  ck_assert_uint_eq(b->n_code, 5);
  ck_assert_uint_eq(b->code[1], gid_now(&d[1]) << 3); /* EV_ENTER */
  ck_assert_uint_eq(b->base_tick, 100);
  ck_assert_uint_eq(b->n_coroutine_frame, 4);
  ck_assert_uint_eq(b->coroutine_frame[0], 1);
  ck_assert_uint_eq(b->coroutine_frame[1], f1);
  ck_assert_uint_eq(b->coroutine_frame[2], 2); /* event 3, less event 1 */
  ck_assert_uint_eq(b->coroutine_frame[3], f2);
  ip_reader_close(r);
  free(scratch);
  finish();
}
END_TEST

/* A pointer call's slot (its hooks recorded no event) names the event that
 * ends the interval its hooks ran in: the next one written, one past the
 * batch's last when none follows; two before one event name it twice. */
START_TEST(a_pointer_call_names_the_event_after_it) {
  start();
  struct ip_event ev[8] = {
      {0, IP_PTR_CALL_TAG}, /* before the batch's first event: event 0 */
      {100, enter_of(0)},
      {0, IP_PTR_CALL_TAG},
      {0, IP_PTR_CALL_TAG},
      {110, enter_of(1)}, /* event 1, twice */
      {120, (uint64_t)(uintptr_t)&d[1] | IP_K_EXIT},
      {130, (uint64_t)(uintptr_t)&d[0] | IP_K_EXIT},
      {0, IP_PTR_CALL_TAG}, /* nothing after it: event 4, the next batch's first */
  };
  uint8_t *scratch = malloc(IP_SCRATCH_BYTES);
  ck_assert_ptr_nonnull(scratch);
  struct ip_kev_list kl = {NULL, 0, 0, 0, 0};
  uint64_t events0 = atomic_load(&ip_st.events);
  ip_encode_batch(scratch, IP_SCRATCH_BYTES, 42, 3, ev, 8, &kl, 0);
  ck_assert_uint_eq(atomic_load(&ip_st.events) - events0, 4);
  for (size_t i = 0; i < 8; i++)
    ck_assert_msg(ev[i].arg == 0, "slot %zu not cleared", i);
  ip_reader *r = NULL;
  Inclprof__EventBatch *b = read_batch(3, &r);
  ck_assert_uint_eq(b->n_code, 4);
  ck_assert_uint_eq(b->base_tick, 100);
  ck_assert_uint_eq(b->n_pointer_calls, 4);
  ck_assert_uint_eq(b->pointer_calls[0], 0);
  ck_assert_uint_eq(b->pointer_calls[1], 1);
  ck_assert_uint_eq(b->pointer_calls[2], 0); /* event 1 again */
  ck_assert_uint_eq(b->pointer_calls[3], 3); /* event 4, less event 1 */
  ip_reader_close(r);
  free(scratch);
  finish();
}
END_TEST

/* A full buffer of pointer call slots and no event (a loop making only such
 * calls) is written as a batch with no event and base tick 0, whose every
 * entry names the next batch's first event; none is dropped. */
START_TEST(a_buffer_of_pointer_calls_alone_is_a_batch_of_them) {
  start();
  size_t n = IP_BUF_EVENTS + IP_HEADROOM;
  struct ip_event *ev = calloc(n, sizeof *ev);
  ck_assert_ptr_nonnull(ev);
  for (size_t i = 0; i < n; i++)
    ev[i].arg = IP_PTR_CALL_TAG;
  ev[5].arg = 0; /* an empty slot among them */
  uint8_t *scratch = malloc(IP_SCRATCH_BYTES);
  ck_assert_ptr_nonnull(scratch);
  struct ip_kev_list kl = {NULL, 0, 0, 0, 0};
  uint64_t events0 = atomic_load(&ip_st.events), dropped0 = atomic_load(&ip_st.dropped);
  ip_encode_batch(scratch, IP_SCRATCH_BYTES, 42, 3, ev, n, &kl, 0);
  ck_assert_uint_eq(atomic_load(&ip_st.events) - events0, 0);
  ck_assert_uint_eq(atomic_load(&ip_st.dropped) - dropped0, 0);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(ev[i].arg == 0, "slot %zu not cleared", i);
  ip_reader *r = NULL;
  Inclprof__EventBatch *b = read_batch(3, &r);
  ck_assert_uint_eq(b->n_dt, 0);
  ck_assert_uint_eq(b->n_code, 0);
  ck_assert_uint_eq(b->base_tick, 0);
  ck_assert_uint_eq(b->n_pointer_calls, n - 1);
  for (size_t i = 0; i < n - 1; i++)
    ck_assert_uint_eq(b->pointer_calls[i], 0);
  ip_reader_close(r);
  free(scratch);
  free(ev);
  finish();
}
END_TEST

/* A batch's kernel-event records read back: their kinds and ticks, the
 * woken thread of each wake-up and the word and operation of each futex
 * wait, in record order. */
START_TEST(kernel_records_with_wakees_and_futex_waits_read_back) {
  start();
  struct ip_event ev[2] = {{100, enter_of(0)}, {200, (uint64_t)(uintptr_t)&d[0] | IP_K_EXIT}};
  enum {
    SYS = INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL,
    FUTEX = INCLPROF__KERNEL_EVENT_KIND__KEV_FUTEX_WAIT,
    WAKE = INCLPROF__KERNEL_EVENT_KIND__KEV_WAKE,
    OUT = INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED
  };
  const struct ip_kev kev[6] = {
      {110, 0, SYS, 0}, {111, 0x7ffd12345678ull, FUTEX, 393},
      {112, 0, OUT, 0}, {150, 0, WAKE, 4242},
      {160, 0, SYS, 0}, {161, 0x55aa00004060ull, FUTEX, 128},
  };
  struct ip_kev_list kl = {kev, 6, 0, 1, 2};
  uint8_t *scratch = malloc(IP_SCRATCH_BYTES);
  ck_assert_ptr_nonnull(scratch);
  ip_encode_batch(scratch, IP_SCRATCH_BYTES, 42, 4, ev, 2, &kl, 0);
  ip_reader *r = NULL;
  Inclprof__EventBatch *b = read_batch(4, &r);
  ck_assert_uint_eq(b->n_kernel_dt, 6);
  ck_assert_uint_eq(b->kernel_base_tick, 110);
  uint64_t tick = b->kernel_base_tick;
  for (size_t i = 0; i < 6; i++) {
    tick += b->kernel_dt[i] >> 3;
    ck_assert_uint_eq(tick, kev[i].tick);
    ck_assert_uint_eq(b->kernel_dt[i] & 7, kev[i].kind);
  }
  ck_assert_uint_eq(b->n_kernel_wakee, 1);
  ck_assert_uint_eq(b->kernel_wakee[0], 4242);
  ck_assert_uint_eq(b->n_kernel_futex, 2);
  ck_assert_uint_eq(b->n_kernel_futex_op, 2);
  ck_assert_uint_eq(b->kernel_futex[0], 0x7ffd12345678ull);
  ck_assert_uint_eq(b->kernel_futex_op[0], 393);
  ck_assert_uint_eq(b->kernel_futex[1], 0x55aa00004060ull);
  ck_assert_uint_eq(b->kernel_futex_op[1], 128);
  ip_reader_close(r);
  free(scratch);
  finish();
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_encode");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, every_kind_and_size_reads_back_as_defined);
  tcase_add_test(tc, a_batch_of_empty_slots_writes_nothing);
  tcase_add_test(tc, a_coroutine_frame_names_the_enter_event_after_it);
  tcase_add_test(tc, a_pointer_call_names_the_event_after_it);
  tcase_add_test(tc, a_buffer_of_pointer_calls_alone_is_a_batch_of_them);
  tcase_add_test(tc, kernel_records_with_wakees_and_futex_waits_read_back);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
