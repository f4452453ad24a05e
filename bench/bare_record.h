/* bare_record.h - the physical floor of a recording hook: read the TSC and
 * append one 16-byte record (timestamp, tagged function pointer) to a
 * thread-local buffer, wrapping when full (nothing is written anywhere).
 * Shared by the -finstrument-functions and the plugin-hook-table variants of
 * the benchmark. */
#ifndef BENCH_BARE_RECORD_H
#define BENCH_BARE_RECORD_H

#include <stdint.h>
#include <x86intrin.h>

struct bare_record {
  uint64_t tsc;
  uintptr_t what; /* function address, low bit set on exit */
};

#define BARE_CAPACITY 65536u

extern __thread struct bare_record bare_buf[BARE_CAPACITY];
extern __thread unsigned bare_pos;
extern __thread uint64_t bare_wraps;

static inline __attribute__((always_inline)) void bare_append(uintptr_t what) {
  uint64_t t = __rdtsc();
  unsigned p = bare_pos;
  if (__builtin_expect(p == BARE_CAPACITY, 0)) {
    p = 0;
    bare_wraps++;
  }
  bare_buf[p].tsc = t;
  bare_buf[p].what = what;
  bare_pos = p + 1;
}

/* Prints "hook_events=N" for the calling thread (the benchmark is single-threaded). */
void bare_report(void);

#endif
