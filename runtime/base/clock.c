/* clock.c - calibrates the tick rate against CLOCK_MONOTONIC_RAW (a 2 ms
 * busy window at start-up) and reads the wall clock for the header. */
#include <time.h>

#include "rt.h"

static uint64_t raw_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void ip_clock_calibrate(void) {
  ip_st.clock = IP_CLOCK_SOURCE;
  if (IP_CLOCK_SOURCE == INCLPROF__CLOCK_SOURCE__CLOCK_MONOTONIC) {
    ip_st.ticks_per_second = 1e9;
    return;
  }
  uint64_t n0 = raw_ns(), t0 = ip_tick(), n1, t1;
  do {
    n1 = raw_ns();
    t1 = ip_tick();
  } while (n1 - n0 < 2000000u);
  ip_st.ticks_per_second = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
}

uint64_t ip_now_ns_realtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
