/* bare_record.h - the physical floor of a recording hook: read the TSC and
 * append one 16-byte record (timestamp, tagged function pointer) to a
 * thread-local buffer, wrapping when full (nothing is written anywhere).
 * Shared by the -finstrument-functions and the plugin-hook-table variants of
 * the benchmark.  Compiled with -DBARE_FENCED the TSC is read after an
 * lfence, as inclprof's default (fenced) clock reads it; without, bare, as
 * INCLPROF_CLOCK=fast reads it.  Compiled with -DBARE_WRITE a full buffer is
 * written out raw (bare_write: 16 bytes per event, one write() per 65 536
 * events, to the file BARE_OUT names) before it wraps: the floor of a tracer
 * that keeps every event. */
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

/* Writes the calling thread's full buffer to BARE_OUT (if set). */
void bare_write(void);

static inline __attribute__((always_inline)) uint64_t bare_tick(void) {
#ifdef BARE_FENCED
  _mm_lfence();
#endif
  return __rdtsc();
}

static inline __attribute__((always_inline)) void bare_append(uintptr_t what) {
  uint64_t t = bare_tick();
  unsigned p = bare_pos;
  if (__builtin_expect(p == BARE_CAPACITY, 0)) {
#ifdef BARE_WRITE
    bare_write();
#endif
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
