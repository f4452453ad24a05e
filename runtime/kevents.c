/* kevents.c - saving the kernel-event records of a thread's kevents ring at
 * flush time: each system call, page fault and context switch (preempted or
 * blocked, from the switch-out record's flags) with its time converted to
 * the probes' clock.  Records carry CLOCK_MONOTONIC_RAW times (the events
 * use that clock, see transitions.c); each save reads the tick clock and
 * CLOCK_MONOTONIC_RAW together and converts the records since the previous
 * save by interpolating between the two readings.  The ring is read-only
 * (the kernel overwrites it): when more than its size arrived since the last
 * save the records are missing, and the batch says so. */
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

enum { KEV_RECORD_MIN = 24 }; /* header + id + time: the smallest record we ask for */

static uint64_t raw_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The tick clock and CLOCK_MONOTONIC_RAW read together: the tightest of
 * three tries (an interrupt or preemption between the reads spoils one). */
static void anchor(struct ip_thread *t) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 3; i++) {
    uint64_t a = ip_tick(), ns = raw_ns(), b = ip_tick();
    if (b - a < best) {
      best = b - a;
      t->kev_anchor_tick = a + (b - a) / 2;
      t->kev_anchor_ns = ns;
    }
  }
}

static uint64_t ring_data_size(const struct ip_thread *t) {
  return t->ring_len - (uint64_t)sysconf(_SC_PAGESIZE);
}

void ip_kevents_open(struct ip_thread *t, uint64_t pf_id) {
  size_t cap = ring_data_size(t) / KEV_RECORD_MIN + 1;
  void *m = mmap(NULL, cap * sizeof(struct ip_kev), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return; /* no records for this thread: its batches say kernel_lost */
  madvise(m, cap * sizeof(struct ip_kev), MADV_POPULATE_WRITE);
  t->kev = m;
  t->kev_cap = cap;
  t->kev_pf_id = pf_id;
  t->kev_n = 0;
  t->kev_lost = 0;
  t->kev_pos = ((const volatile struct perf_event_mmap_page *)t->ring)->data_head;
  anchor(t);
}

void ip_kevents_close(struct ip_thread *t) {
  if (t->kev)
    munmap(t->kev, t->kev_cap * sizeof(struct ip_kev));
  t->kev = NULL;
  t->kev_cap = t->kev_n = 0;
}

static uint64_t ring_u64(const uint8_t *data, uint64_t mask, uint64_t pos) {
  uint64_t v;
  memcpy(&v, data + (pos & mask), sizeof v); /* records are 8-byte aligned: never split */
  return v;
}

void ip_kevents_save(struct ip_thread *t) {
  t->kev_n = 0;
  t->kev_lost = 0;
  if (!t->ring)
    return;
  if (!t->kev) {
    t->kev_lost = 1;
    return;
  }
  const volatile struct perf_event_mmap_page *pg = t->ring;
  uint64_t head = pg->data_head;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  uint64_t prev_tick = t->kev_anchor_tick, prev_ns = t->kev_anchor_ns;
  anchor(t);
  uint64_t size = ring_data_size(t), mask = size - 1, from = t->kev_pos;
  if (head - from > size) {
    t->kev_lost = 1;
    t->kev_pos = head;
    return;
  }
  const uint8_t *data = (const uint8_t *)t->ring + sysconf(_SC_PAGESIZE);
  double span_ns = (double)(t->kev_anchor_ns - prev_ns);
  double tick_per_ns = span_ns > 1e6 ? (double)(t->kev_anchor_tick - prev_tick) / span_ns
                                     : ip_st.ticks_per_second / 1e9;
  size_t n = 0;
  for (uint64_t pos = from; pos < head && n < t->kev_cap;) {
    uint64_t h = ring_u64(data, mask, pos);
    uint32_t type = (uint32_t)h;
    uint16_t misc = (uint16_t)(h >> 32), rsize = (uint16_t)(h >> 48);
    if (rsize < 8 || head - pos < rsize)
      break;
    int kind = -1;
    uint64_t ns = 0;
    if (type == PERF_RECORD_SAMPLE && rsize >= KEV_RECORD_MIN) { /* id, time */
      kind = ring_u64(data, mask, pos + 8) == t->kev_pf_id
                 ? INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT
                 : INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL;
      ns = ring_u64(data, mask, pos + 16);
    } else if (type == PERF_RECORD_SWITCH && rsize >= KEV_RECORD_MIN) { /* time, id */
      kind = !(misc & PERF_RECORD_MISC_SWITCH_OUT) ? INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN
             : (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
                 ? INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED
                 : INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED;
      ns = ring_u64(data, mask, pos + 8);
    }
    pos += rsize;
    if (kind < 0)
      continue;
    double d = ((double)ns - (double)t->kev_anchor_ns) * tick_per_ns;
    int64_t tick = (int64_t)t->kev_anchor_tick + (int64_t)d;
    t->kev[n].tick = tick > 0 ? (uint64_t)tick : 0;
    t->kev[n].kind = (uint32_t)kind;
    n++;
  }
  /* The kernel may have overwritten what we read meanwhile. */
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (pg->data_head - from > size) {
    t->kev_lost = 1;
    n = 0;
  }
  t->kev_n = n;
  t->kev_pos = head;
}

void ip_kevents_skip(struct ip_thread *t) {
  if (t->ring)
    t->kev_pos = ((const volatile struct perf_event_mmap_page *)t->ring)->data_head;
}
