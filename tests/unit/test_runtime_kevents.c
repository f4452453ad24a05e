/* test_runtime_kevents.c - saving a kevents ring's records at flush time
 * (runtime/produce/kevents.c) on a ring built here: each record's kind (system call,
 * page fault by its sample id, switch-out preempted or blocked from the
 * kernel's flags, switch-in), other record types skipped, records that wrap
 * around the ring's end, times converted to ticks in order, only the records
 * since the previous save, a ring that wrapped reported as lost, and the
 * records after a flush's Gap skipped unless one is a context switch, and
 * inside the Gap only its preemptions kept. */
#include <check.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "produce/produce.h"
#include "check_main.h"

enum { PF_ID = 77, SYS_ID = 5 };

static struct ip_rt_thread t;
static uint8_t *data;
static uint64_t size;

static uint64_t raw_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void open_ring(size_t data_pages) {
  long pg = sysconf(_SC_PAGESIZE);
  memset(&t, 0, sizeof t);
  t.ring_len = (size_t)pg * (1 + data_pages);
  t.ring = mmap(NULL, t.ring_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(t.ring, MAP_FAILED);
  data = (uint8_t *)t.ring + pg;
  size = (uint64_t)pg * data_pages;
  ip_st.ticks_per_second = 1e9;
  ip_kevents_open(&t, PF_ID);
  ck_assert_ptr_nonnull(t.kev);
}

static void put64(uint64_t pos, uint64_t v) { memcpy(data + (pos & (size - 1)), &v, 8); }

/* Appends a record of 24 bytes at data_head: a sample (id, time) or another
 * type (time, id, as the sample_id trailer of a switch). */
static void put(uint32_t type, uint16_t misc, uint64_t id, uint64_t ns) {
  struct perf_event_mmap_page *pg = t.ring;
  uint64_t h = (uint64_t)type | (uint64_t)misc << 32 | (uint64_t)24 << 48, pos = pg->data_head;
  put64(pos, h);
  put64(pos + 8, type == PERF_RECORD_SAMPLE ? id : ns);
  put64(pos + 16, type == PERF_RECORD_SAMPLE ? ns : id);
  pg->data_head = pos + 24;
}

START_TEST(kinds_order_and_ticks) {
  open_ring(1);
  uint64_t now = raw_now();
  put(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, SYS_ID, now - 5000);
  put(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, SYS_ID,
      now - 4000);
  put(PERF_RECORD_SWITCH, 0, SYS_ID, now - 3000);
  put(PERF_RECORD_THROTTLE, 0, SYS_ID, now - 2900); /* not ours: skipped */
  put(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, PF_ID, now - 2500);
  put(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, SYS_ID, now - 2000);
  put(PERF_RECORD_SWITCH, 0, SYS_ID, now - 1000);
  ip_kevents_save(&t);
  ck_assert_int_eq(t.kev_lost, 0);
  ck_assert_uint_eq(t.kev_n, 6);
  const uint32_t kinds[6] = {INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL,
                             INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED,
                             INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN,
                             INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT,
                             INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED,
                             INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN};
  const uint64_t ns[6] = {5000, 4000, 3000, 2500, 2000, 1000};
  for (int i = 0; i < 6; i++) {
    ck_assert_uint_eq(t.kev[i].kind, kinds[i]);
    if (i) { /* 1 tick per ns here: the gaps between records are kept */
      int64_t d = (int64_t)(t.kev[i].tick - t.kev[i - 1].tick) - (int64_t)(ns[i - 1] - ns[i]);
      ck_assert_msg(d >= -2 && d <= 2, "record %d: tick step off by %lld", i, (long long)d);
    }
  }
  /* The next save sees only what came since. */
  put(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, SYS_ID, raw_now());
  ip_kevents_save(&t);
  ck_assert_uint_eq(t.kev_n, 1);
  ck_assert_uint_eq(t.kev[0].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL);
  ip_kevents_skip(&t, ((struct perf_event_mmap_page *)t.ring)->data_head);
  ip_kevents_save(&t);
  ck_assert_uint_eq(t.kev_n, 0);
  ip_kevents_close(&t);
  munmap(t.ring, t.ring_len);
}
END_TEST

START_TEST(records_across_the_end_and_a_wrapped_ring) {
  open_ring(1);
  uint64_t per = size / 24, now = raw_now();
  for (uint64_t i = 0; i < per; i++) /* as many whole records as the ring holds */
    put(PERF_RECORD_SAMPLE, 0, SYS_ID, now);
  ip_kevents_save(&t);
  ck_assert_int_eq(t.kev_lost, 0);
  ck_assert_uint_eq(t.kev_n, per);
  for (uint64_t i = 0; i < per; i++) /* the next batch's records straddle the end too */
    put(PERF_RECORD_SAMPLE, 0, PF_ID, now);
  ip_kevents_save(&t);
  ck_assert_uint_eq(t.kev_n, per);
  ck_assert_uint_eq(t.kev[per - 1].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT);
  for (uint64_t i = 0; i <= per; i++) /* one more than the ring holds: the oldest is gone */
    put(PERF_RECORD_SAMPLE, 0, SYS_ID, now);
  ip_kevents_save(&t);
  ck_assert_int_eq(t.kev_lost, 0); /* a KEV_LOST record stands in for them */
  ck_assert_uint_eq(t.kev_n, 1);
  ck_assert_uint_eq(t.kev[0].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_LOST);
  put(PERF_RECORD_SAMPLE, 0, SYS_ID, raw_now()); /* and the save after that is whole again */
  ip_kevents_save(&t);
  ck_assert_int_eq(t.kev_lost, 0);
  ck_assert_uint_eq(t.kev_n, 1);
  ip_kevents_close(&t);
  munmap(t.ring, t.ring_len);
}
END_TEST

/* A probe reads the ring once half of it came; what it read stays for the
 * batch; a wrap between two reads leaves a KEV_LOST record at the probe's
 * tick and keeps the records before and after it. */
START_TEST(probes_drain_before_the_ring_wraps) {
  open_ring(1);
  uint64_t per = size / 24, now = raw_now();
  const struct perf_event_mmap_page *pg = t.ring;
  ck_assert_uint_eq(t.kev_drain_at, pg->data_head + size / 2);
  for (uint64_t i = 0; i < per / 2 + 1; i++)
    put(PERF_RECORD_SAMPLE, 0, SYS_ID, now);
  ck_assert_uint_ge(pg->data_head, t.kev_drain_at); /* a probe would read now */
  ip_kevents_drain(&t, 12345);
  ck_assert_uint_eq(t.kev_n, per / 2 + 1);
  ck_assert_uint_eq(t.kev_drain_at, pg->data_head + size / 2);
  for (uint64_t i = 0; i <= per; i++) /* more than the ring holds before the next probe */
    put(PERF_RECORD_SAMPLE, 0, PF_ID, now);
  ip_kevents_drain(&t, 23456);
  ck_assert_uint_eq(t.kev_n, per / 2 + 2);
  ck_assert_uint_eq(t.kev[per / 2 + 1].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_LOST);
  ck_assert_uint_eq(t.kev[per / 2 + 1].tick, 23456);
  put(PERF_RECORD_SWITCH, 0, SYS_ID, raw_now());
  ip_kevents_save(&t); /* the flush: everything since the last batch */
  ck_assert_int_eq(t.kev_lost, 0);
  ck_assert_uint_eq(t.kev_n, per / 2 + 3);
  ck_assert_uint_eq(t.kev[0].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL);
  ck_assert_uint_eq(t.kev[per / 2 + 2].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  ip_kevents_skip(&t, ((struct perf_event_mmap_page *)t.ring)->data_head);
  ip_kevents_drain(&t, 34567); /* the next batch starts empty */
  ck_assert_uint_eq(t.kev_n, 0);
  ip_kevents_close(&t);
  munmap(t.ring, t.ring_len);
}
END_TEST

/* After a flush's Gap: the runtime's own records (its Gap's write) are
 * skipped, unless the thread was switched out there; then they reach the next
 * batch, from where the Gap ended, and the position returned is that one (the
 * next probe sees the counter moved). */
START_TEST(skip_after_the_gap_keeps_a_switch) {
  open_ring(1);
  const struct perf_event_mmap_page *pg = t.ring;
  ip_kevents_save(&t);
  put(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, SYS_ID, raw_now()); /* the batch's write */
  uint64_t at_end = pg->data_head;
  put(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, SYS_ID, raw_now()); /* the Gap's write */
  ck_assert_uint_eq(ip_kevents_skip(&t, at_end), pg->data_head);
  ip_kevents_save(&t);
  ck_assert_uint_eq(t.kev_n, 0);
  put(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, SYS_ID, raw_now());
  at_end = pg->data_head;
  put(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, SYS_ID, raw_now());
  put(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, SYS_ID,
      raw_now());
  put(PERF_RECORD_SWITCH, 0, SYS_ID, raw_now());
  ck_assert_uint_eq(ip_kevents_skip(&t, at_end), at_end);
  ip_kevents_save(&t);
  ck_assert_uint_eq(t.kev_n, 3);
  ck_assert_uint_eq(t.kev[0].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL);
  ck_assert_uint_eq(t.kev[1].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
  ck_assert_uint_eq(t.kev[2].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  ip_kevents_close(&t);
  munmap(t.ring, t.ring_len);
}
END_TEST

/* Inside a flush's Gap: its system calls and a blocked switch (a wait in the
 * runtime's own work) are skipped; a preemption and its switch-in reach the
 * next batch, and their time (1 tick per ns here) is what the Gap leaves
 * out, up to the Gap's end for a switch-in that comes after it. */
START_TEST(a_preemption_inside_the_gap_is_kept) {
  open_ring(1);
  const struct perf_event_mmap_page *pg = t.ring;
  ip_kevents_save(&t);
  uint64_t now = raw_now(), base = t.kev_anchor_tick - t.kev_anchor_ns;
  put(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, SYS_ID, now); /* the batch's write */
  put(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, SYS_ID,
      now + 1000);
  put(PERF_RECORD_SWITCH, 0, SYS_ID, now + 51000);
  put(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, SYS_ID, now + 52000);
  put(PERF_RECORD_SWITCH, 0, SYS_ID, now + 90000);
  put(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, SYS_ID,
      now + 95000);
  uint64_t at_end = pg->data_head, end = base + now + 97000;
  int64_t held = (int64_t)ip_kevents_flush_preempted(&t, at_end, end);
  ck_assert_msg(held >= 51998 && held <= 52002, "held %lld ticks, not 50000 + 2000",
                (long long)held);
  ck_assert_uint_eq(ip_kevents_skip(&t, at_end), pg->data_head);
  ck_assert_uint_eq(t.kev_n, 3);
  ck_assert_uint_eq(t.kev[0].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
  ck_assert_uint_eq(t.kev[1].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  ck_assert_uint_eq(t.kev[2].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
  int64_t d = (int64_t)(t.kev[1].tick - t.kev[0].tick) - 50000;
  ck_assert_msg(d >= -2 && d <= 2, "switch-in %lld ticks off", (long long)d);
  put(PERF_RECORD_SWITCH, 0, SYS_ID, now + 99000); /* its switch-in, after the Gap */
  ip_kevents_save(&t); /* the next batch: the kept records, then the new one */
  ck_assert_uint_eq(t.kev_n, 4);
  ck_assert_uint_eq(t.kev[3].kind, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  ck_assert_uint_ge(t.kev[3].tick, t.kev[2].tick);
  ip_kevents_close(&t);
  munmap(t.ring, t.ring_len);
}
END_TEST

int main(void) {
  Suite *su = suite_create("runtime_kevents");
  TCase *tc = tcase_create("save");
  tcase_add_test(tc, kinds_order_and_ticks);
  tcase_add_test(tc, records_across_the_end_and_a_wrapped_ring);
  tcase_add_test(tc, skip_after_the_gap_keeps_a_switch);
  tcase_add_test(tc, a_preemption_inside_the_gap_is_kept);
  tcase_add_test(tc, probes_drain_before_the_ring_wraps);
  suite_add_tcase(su, tc);
  return ip_check_run(su);
}
