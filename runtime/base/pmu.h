/* pmu.h - reading a perf counter from user space through its mapped page
 * (rdpmc on x86-64, the self-monitoring protocol of perf_event_mmap_page).
 * Inlined into the pmu-mode probes.  A page whose index is 0 (no counter
 * available to rdpmc) reads as its `offset` field, which is 0 for the dummy
 * page given to threads whose counter could not be opened. */
#ifndef INCLPROF_PMU_H
#define INCLPROF_PMU_H

#include <linux/perf_event.h>
#include <stdint.h>

static inline uint64_t ip_pmu_value(const volatile struct perf_event_mmap_page *pc) {
  uint32_t seq, idx;
  uint64_t count;
  do {
    seq = pc->lock;
    __asm__ __volatile__("" ::: "memory");
    idx = pc->index;
    count = (uint64_t)pc->offset;
#if defined(__x86_64__)
    if (idx) {
      uint32_t lo, hi;
      __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx - 1));
      count += (uint64_t)hi << 32 | lo;
    }
#else
    (void)idx; /* no user-space counter read here: the offset alone */
#endif
    __asm__ __volatile__("" ::: "memory");
  } while (pc->lock != seq);
  return count;
}

#endif
