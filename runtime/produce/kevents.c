/* kevents.c - saving the kernel-event records of a thread's kevents ring
 * for its next batch: each system call, page fault and context switch
 * (preempted or blocked, from the switch-out record's flags), and each
 * wake-up of another thread by this one (the scheduler's sched_waking and
 * sched_wakeup_new tracepoints, with the woken thread's tid; wake-ups the
 * kernel made in an interrupt that happened to land on this thread are left
 * out), and each futex system call that may sleep (syscalls:sys_enter_futex,
 * with the word's address and the operation), with its time converted to the
 * probes' clock.  Records carry CLOCK_MONOTONIC_RAW times
 * (the events use that clock, see transitions.c); each read takes the tick
 * clock and CLOCK_MONOTONIC_RAW together and converts the records since the
 * previous read by interpolating between the two readings.  The ring is
 * read-only (the kernel overwrites it), so it is read before it wraps: at
 * flush time, and by a probe that finds it half full since the last read
 * (an I/O thread makes thousands of system calls between two flushes);
 * when its records nearly fill what one batch can carry, that probe has the
 * next one flush the batch early.
 * When more than the ring's size came between two reads (a page-fault burst
 * inside one call), those records are missing: a KEV_LOST record stands in
 * for them, and the records after it are kept.  A sampling handler's own
 * system calls are left out (sampling.c queues where each handler's begin). */
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "produce/produce.h"

enum { KEV_RECORD_MIN = 24 }; /* header + id + time: the smallest record we ask for */
enum { KEV_RAW_AT = 28 };     /* a wake-up record's raw data: after header, id, time, its size */
/* The tracepoint's common_flags (byte 2 of its raw data): set when it fired
 * in a hard or soft interrupt or an NMI, not in the thread's own work. */
enum { TRACE_FLAGS_AT = 2, TRACE_FLAGS_INTERRUPT = 0x08 | 0x10 | 0x40 };
/* Records one batch can carry: what an encoding area has room for beside
 * the events (10 bytes each at most), about 10 rings' worth. */
enum { KEV_BATCH_MAX = 24576 };

static uint64_t raw_ns(void) { return ip_clock_ns(CLOCK_MONOTONIC_RAW); }

/* The tick clock and CLOCK_MONOTONIC_RAW read together: the tightest of
 * three tries (an interrupt or preemption between the reads spoils one). */
static void anchor(struct ip_rt_thread *t) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 3; i++) {
    uint64_t a = ip_tick_cold(), ns = raw_ns(), b = ip_tick_cold();
    if (b - a < best) {
      best = b - a;
      t->kev_anchor_tick = a + (b - a) / 2;
      t->kev_anchor_ns = ns;
    }
  }
}

static uint64_t ring_data_size(const struct ip_rt_thread *t) {
  return t->ring_len - (uint64_t)sysconf(_SC_PAGESIZE);
}

/* A probe reads the ring again once half of it has come. */
static void set_drain_at(struct ip_rt_thread *t) {
  t->kev_drain_at = t->kev_pos + ring_data_size(t) / 2;
}

/* The records' mapping: cap records, then the sampling handlers' queue. */
static size_t kev_bytes(size_t cap) {
  return cap * sizeof(struct ip_kev) + IP_OWN_SYS_Q * sizeof(uint64_t);
}

void ip_kevents_open(struct ip_rt_thread *t, uint64_t pf_id) {
  size_t cap = KEV_BATCH_MAX, ring = ring_data_size(t) / KEV_RECORD_MIN + 1;
  t->kev_drain_at = UINT64_MAX;
  void *m = mmap(NULL, kev_bytes(cap), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return; /* no records for this thread: its batches say kernel_lost */
  ip_mem_own(m, kev_bytes(cap), 0);
  /* A ring's worth is touched now; a thread that needs more faults the
   * rest in as it comes (in a probe's read of the ring). */
  madvise(m, ring * sizeof(struct ip_kev), MADV_POPULATE_WRITE);
  t->kev = m;
  t->kev_cap = cap;
  atomic_store(&t->own_sys_tail, atomic_load(&t->own_sys_head));
  t->own_sys = (uint64_t *)((struct ip_kev *)m + cap);
  t->kev_pf_id = pf_id;
  t->kev_n = t->kev_n_wake = t->kev_n_futex = 0;
  t->kev_lost = t->kev_taken = 0;
  t->kev_pos = ((const volatile struct perf_event_mmap_page *)t->ring)->data_head;
  set_drain_at(t);
  anchor(t);
}

void ip_kevents_close(struct ip_rt_thread *t) {
  t->own_sys = NULL;
  if (t->kev)
    munmap(t->kev, kev_bytes(t->kev_cap));
  t->kev = NULL;
  t->kev_cap = t->kev_n = t->kev_n_wake = t->kev_n_futex = 0;
  t->kev_drain_at = UINT64_MAX;
}

static uint64_t ring_u64(const uint8_t *data, uint64_t mask, uint64_t pos) {
  uint64_t v;
  memcpy(&v, data + (pos & mask), sizeof v); /* records are 8-byte aligned: never split */
  return v;
}

/* Appends a record; when the batch is full, the last slot says the rest
 * is lost (its tick the latest loss). */
static void put(struct ip_rt_thread *t, uint64_t tick, uint32_t kind, uint32_t arg,
                uint64_t futex) {
  if (t->kev_n + 1 >= t->kev_cap) {
    if (t->kev_n && t->kev[t->kev_n - 1].kind == INCLPROF__KERNEL_EVENT_KIND__KEV_LOST)
      t->kev_n--;
    kind = INCLPROF__KERNEL_EVENT_KIND__KEV_LOST;
  }
  t->kev[t->kev_n].tick = tick;
  t->kev[t->kev_n].kind = kind;
  t->kev[t->kev_n].arg = arg;
  t->kev[t->kev_n].futex = futex;
  t->kev_n++;
  t->kev_n_wake += kind == INCLPROF__KERNEL_EVENT_KIND__KEV_WAKE;
  t->kev_n_futex += kind == INCLPROF__KERNEL_EVENT_KIND__KEV_FUTEX_WAIT;
}

/* The n (at most 8) little-endian bytes of a record's raw data at off (may
 * straddle the ring's end). */
static uint64_t raw_bytes(const uint8_t *data, uint64_t mask, uint64_t pos, unsigned off,
                          unsigned n) {
  uint64_t v = 0;
  for (unsigned k = 0; k < n; k++)
    v |= (uint64_t)data[(pos + KEV_RAW_AT + off + k) & mask] << (8 * k);
  return v;
}

/* A futex record's word and operation into *uaddr and *op; 0 when the record
 * is short or the operation does not sleep (the kernel's filter refused). */
static int futex_of(const uint8_t *data, uint64_t mask, uint64_t pos, uint16_t rsize,
                    uint64_t *uaddr, uint32_t *op) {
  unsigned end = ip_st.futex_uaddr_off > ip_st.futex_op_off ? ip_st.futex_uaddr_off + 8
                                                            : ip_st.futex_op_off + 4;
  if (rsize < KEV_RAW_AT + end)
    return 0;
  *uaddr = raw_bytes(data, mask, pos, ip_st.futex_uaddr_off, 8);
  *op = (uint32_t)raw_bytes(data, mask, pos, ip_st.futex_op_off, 4);
  return ip_futex_op_waits(*op);
}

/* The woken thread of a wake-up record at pos of rsize bytes, or 0 when the
 * record is short or the wake-up came from an interrupt. */
static uint32_t wakee_of(const uint8_t *data, uint64_t mask, uint64_t pos, uint16_t rsize) {
  if (rsize < KEV_RAW_AT + ip_st.wakee_off + 4)
    return 0;
  uint8_t flags = (uint8_t)raw_bytes(data, mask, pos, TRACE_FLAGS_AT, 1);
  uint32_t tid = (uint32_t)raw_bytes(data, mask, pos, ip_st.wakee_off, 4);
  return flags & TRACE_FLAGS_INTERRUPT || (int32_t)tid <= 0 ? 0 : tid;
}

/* A record's kernel time ns on the probes' clock, from the last save's
 * anchor at tick_per_ns; never below 0. */
static uint64_t record_tick(const struct ip_rt_thread *t, uint64_t ns, double tick_per_ns) {
  double d = ((double)ns - (double)t->kev_anchor_ns) * tick_per_ns;
  int64_t tick = (int64_t)t->kev_anchor_tick + (int64_t)d;
  return tick > 0 ? (uint64_t)tick : 0;
}

/* Whether the system-call record at ring position pos is one of a sampling
 * handler's own calls (sampling.c queues them from *own to own_end: each
 * sample's position and count); a sample whose calls are all found, or
 * whose position the ring has passed before them (records skipped with the
 * runtime's own), leaves the queue. */
static int own_call(struct ip_rt_thread *t, unsigned *own, unsigned own_end, uint64_t pos) {
  for (; *own != own_end; ++*own) {
    uint64_t *e = &t->own_sys[*own % IP_OWN_SYS_Q];
    const uint64_t *next = &t->own_sys[(*own + 1) % IP_OWN_SYS_Q];
    if (!IP_OWN_SYS_N(*e) || (*own + 1 != own_end && pos >= IP_OWN_SYS_AT(*next)))
      continue; /* done, or a later sample's calls begin before this one's were all seen */
    if (pos < IP_OWN_SYS_AT(*e))
      return 0;
    *e = IP_OWN_SYS(*e, IP_OWN_SYS_N(*e) - 1);
    if (!IP_OWN_SYS_N(*e))
      ++*own;
    return 1;
  }
  return 0;
}

/* Appends the records since the last read to t->kev; lost_tick: where a
 * KEV_LOST record goes if the ring wrapped meanwhile. */
static void collect(struct ip_rt_thread *t, uint64_t lost_tick) {
  if (t->kev_taken) { /* the last save's records went into a batch */
    t->kev_n = t->kev_n_wake = t->kev_n_futex = 0;
    t->kev_lost = t->kev_taken = 0;
  }
  const volatile struct perf_event_mmap_page *pg = t->ring;
  uint64_t head = pg->data_head;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  uint64_t prev_tick = t->kev_anchor_tick, prev_ns = t->kev_anchor_ns;
  anchor(t);
  uint64_t size = ring_data_size(t), mask = size - 1, from = t->kev_pos;
  t->kev_pos = head;
  set_drain_at(t);
  /* samples queued before head was read: their handlers' calls lie below it */
  unsigned own_end = atomic_load_explicit(&t->own_sys_head, memory_order_acquire);
  unsigned own = atomic_load_explicit(&t->own_sys_tail, memory_order_relaxed);
  if (head - from > size) {
    atomic_store_explicit(&t->own_sys_tail, own_end, memory_order_release);
    put(t, lost_tick ? lost_tick : t->kev_anchor_tick, INCLPROF__KERNEL_EVENT_KIND__KEV_LOST, 0, 0);
    return;
  }
  const uint8_t *data = (const uint8_t *)t->ring + sysconf(_SC_PAGESIZE);
  double span_ns = (double)(t->kev_anchor_ns - prev_ns);
  double tick_per_ns = span_ns > 1e6 ? (double)(t->kev_anchor_tick - prev_tick) / span_ns
                                     : ip_st.ticks_per_second / 1e9;
  size_t n0 = t->kev_n, n0_wake = t->kev_n_wake, n0_futex = t->kev_n_futex;
  for (uint64_t pos = from; pos < head;) {
    uint64_t h = ring_u64(data, mask, pos);
    uint32_t type = (uint32_t)h;
    uint16_t misc = (uint16_t)(h >> 32), rsize = (uint16_t)(h >> 48);
    if (rsize < 8 || head - pos < rsize)
      break;
    int kind = -1;
    uint64_t ns = 0, futex = 0;
    uint32_t arg = 0;
    if (type == PERF_RECORD_SAMPLE && rsize >= KEV_RECORD_MIN) { /* id, time[, raw] */
      uint64_t id = ring_u64(data, mask, pos + 8);
      if (id == t->kev_wake_id[0] || id == t->kev_wake_id[1]) {
        arg = wakee_of(data, mask, pos, rsize);
        kind = arg && arg != t->tid ? INCLPROF__KERNEL_EVENT_KIND__KEV_WAKE : -1;
      } else if (id == t->kev_futex_id && id) {
        kind = futex_of(data, mask, pos, rsize, &futex, &arg) && t->kev_n_futex < IP_KEV_FUTEX_MAX
                   ? INCLPROF__KERNEL_EVENT_KIND__KEV_FUTEX_WAIT
                   : -1;
      } else
        kind = id == t->kev_pf_id ? INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT
                                  : INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL;
      ns = ring_u64(data, mask, pos + 16);
    } else if (type == PERF_RECORD_SWITCH && rsize >= KEV_RECORD_MIN) { /* time, id */
      kind = !(misc & PERF_RECORD_MISC_SWITCH_OUT) ? INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN
             : (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
                 ? INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED
                 : INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED;
      ns = ring_u64(data, mask, pos + 8);
    }
    if (kind == INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL && own_call(t, &own, own_end, pos))
      kind = -1;
    pos += rsize;
    if (kind < 0)
      continue;
    put(t, record_tick(t, ns, tick_per_ns), (uint32_t)kind, arg, futex);
  }
  atomic_store_explicit(&t->own_sys_tail, own, memory_order_release);
  /* The kernel may have overwritten what we read meanwhile. */
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (pg->data_head - from > size) {
    t->kev_n = n0;
    t->kev_n_wake = n0_wake;
    t->kev_n_futex = n0_futex;
    put(t, lost_tick ? lost_tick : t->kev_anchor_tick, INCLPROF__KERNEL_EVENT_KIND__KEV_LOST, 0, 0);
  }
}

void ip_kevents_save(struct ip_rt_thread *t) {
  if (t->kev_taken) {
    t->kev_n = t->kev_n_wake = t->kev_n_futex = 0;
    t->kev_lost = t->kev_taken = 0;
  }
  if (!t->ring)
    return;
  if (!t->kev)
    t->kev_lost = 1;
  else
    collect(t, 0);
  t->kev_taken = 1;
}

IP_RT_TEXT void ip_kevents_drain(struct ip_rt_thread *t, uint64_t tick) {
  if (!t->kev || !t->ring) {
    t->kev_drain_at = UINT64_MAX;
    return;
  }
  if (t->in_flush || atomic_exchange(&t->busy, 1))
    return; /* a flush is reading the ring */
  collect(t, tick);
  /* Less than a ring's worth of room left in the batch (a thread that makes
   * many system calls and wake-ups per event): the next probe flushes. */
  if (t->kev_n + ring_data_size(t) / KEV_RECORD_MIN >= t->kev_cap && t->end > t->pos)
    t->end = t->pos;
  atomic_store(&t->busy, 0);
}

/* The thread's preemptions inside the runtime's own work: the switch
 * records from the last save to at_end (a flush's span, whose other records
 * are the runtime's and skipped), each switch-out while runnable with its
 * switch-in, its time converted from the save's anchor.  keep: they are
 * appended to the records of the next batch.  Returns the ticks they took
 * (up to end_tick for a switch-out whose switch-in comes later). */
static uint64_t flush_preemptions(struct ip_rt_thread *t, uint64_t at_end, uint64_t end_tick,
                                  int keep) {
  uint64_t size = ring_data_size(t), mask = size - 1, from = t->kev_pos;
  if (!t->kev || at_end - from > size)
    return 0; /* no room, or the ring wrapped: what they were is not known */
  const uint8_t *data = (const uint8_t *)t->ring + sysconf(_SC_PAGESIZE);
  double tick_per_ns = ip_st.ticks_per_second / 1e9;
  uint64_t off = 0, out = 0;
  int open = 0;
  for (uint64_t pos = from; pos < at_end;) {
    uint64_t h = ring_u64(data, mask, pos);
    uint16_t misc = (uint16_t)(h >> 32), rsize = (uint16_t)(h >> 48);
    if (rsize < 8 || at_end - pos < rsize)
      break;
    if ((uint32_t)h == PERF_RECORD_SWITCH && rsize >= KEV_RECORD_MIN) {
      uint64_t tick = record_tick(t, ring_u64(data, mask, pos + 8), tick_per_ns);
      if (tick > end_tick)
        tick = end_tick;
      if (!(misc & PERF_RECORD_MISC_SWITCH_OUT)) {
        if (open && tick > out)
          off += tick - out;
        if (open && keep)
          put(t, tick, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN, 0, 0);
        open = 0;
      } else if (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) {
        if (keep) {
          if (t->kev_taken) { /* the saved records went into the flush's batch */
            t->kev_n = t->kev_n_wake = t->kev_n_futex = 0;
            t->kev_lost = t->kev_taken = 0;
          }
          put(t, tick, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED, 0, 0);
        }
        open = 1;
        out = tick;
      } else { /* blocked in the runtime's own work: its time stays the flush's */
        open = 0;
      }
    }
    pos += rsize;
  }
  if (open && end_tick > out)
    off += end_tick - out;
  return off;
}

uint64_t ip_kevents_flush_preempted(struct ip_rt_thread *t, uint64_t at_end, uint64_t end_tick) {
  return t->ring ? flush_preemptions(t, at_end, end_tick, 0) : 0;
}

/* Whether a record in [from, head) is a context switch (or the ring wrapped
 * over them, and what they were is not known). */
static int switched(const struct ip_rt_thread *t, uint64_t from, uint64_t head) {
  uint64_t size = ring_data_size(t), mask = size - 1;
  if (head - from > size)
    return 1;
  const uint8_t *data = (const uint8_t *)t->ring + sysconf(_SC_PAGESIZE);
  for (uint64_t pos = from; pos < head;) {
    uint64_t h = ring_u64(data, mask, pos);
    uint16_t rsize = (uint16_t)(h >> 48);
    if (rsize < 8 || head - pos < rsize)
      return 0;
    if ((uint32_t)h == PERF_RECORD_SWITCH)
      return 1;
    pos += rsize;
  }
  return 0;
}

/* The runtime's records after its Gap ended are skipped only when the thread
 * stayed on the CPU: a preemption there (at the return of the Gap's write,
 * or of the writer's wake-up) is time outside the Gap, which the next
 * interval must show as Non-Application.  Inside the Gap, the preemptions
 * are kept too (the Gap leaves out their time): the thread would have waited
 * for the CPU as long without the flush, a little later. */
uint64_t ip_kevents_skip(struct ip_rt_thread *t, uint64_t from) {
  if (!t->ring)
    return *t->tr_src;
  uint64_t head = ((const volatile struct perf_event_mmap_page *)t->ring)->data_head;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  flush_preemptions(t, from, UINT64_MAX, 1);
  t->kev_pos = switched(t, from, head) ? from : head;
  if (t->kev_pos == head) { /* samples in the skipped span: their handlers' calls went with it */
    unsigned own = atomic_load_explicit(&t->own_sys_tail, memory_order_relaxed);
    unsigned own_end = atomic_load_explicit(&t->own_sys_head, memory_order_acquire);
    while (own != own_end && IP_OWN_SYS_AT(t->own_sys[own % IP_OWN_SYS_Q]) < head)
      own++;
    atomic_store_explicit(&t->own_sys_tail, own, memory_order_release);
  }
  if (t->kev)
    set_drain_at(t);
  return t->kev_pos;
}
