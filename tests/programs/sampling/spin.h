/* spin.h - pure computation for the sampling test programs: n steps of a
 * linear congruential generator, a dependency chain the compiler cannot
 * shorten.  Always inlined, so the work is the caller's exclusive work. */
#ifndef SAMPLING_SPIN_H
#define SAMPLING_SPIN_H

static inline __attribute__((always_inline)) unsigned long spin(unsigned long x, long n) {
  for (long i = 0; i < n; i++)
    x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

#endif
