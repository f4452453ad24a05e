/* tsc_off.c - a thread that disables its time-stamp counter (prctl
 * PR_SET_TSC, PR_TSC_SIGSEGV: rdtsc then raises SIGSEGV in it) stops
 * recording just before, for good: its events so far are written, its
 * ThreadEnd says why, and its probes record nothing from then on.  The
 * threads it starts later and its fork children inherit the setting: once
 * some thread has disabled it, every thread asks the kernel before its
 * first tick (clock.c), and one that may not read it records nothing; the
 * runtime's own ticks on such a thread come from CLOCK_MONOTONIC_RAW. */
#include <stdio.h>
#include <sys/prctl.h>

#include "entry/entry.h"

void ip_tsc_disabling(void) {
  if (IP_CLOCK_SOURCE != INCLPROF__CLOCK_SOURCE__CLOCK_TSC || ip_process_is_child())
    return; /* a vfork child's setting is not its parent's thread's */
  struct ip_rt_thread *t = &ip_tls;
  if (ip_tsc_off_here())
    return;
  ip_clock_anchor(&t->tsc_anchor_tick, &t->tsc_anchor_ns);
  char why[96];
  double ms = (double)(t->tsc_anchor_tick - ip_st.start_tick) * 1e3 / ip_st.ticks_per_second;
  snprintf(why, sizeof why, "the program disabled rdtsc (PR_SET_TSC) at %.3f ms", ms);
  ip_thread_stop(t, why);
  t->tsc = IP_TSC_OFF;
  atomic_store(&ip_st.tsc_off_seen, 1);
}

void ip_tsc_enabled(void) {
  if (IP_CLOCK_SOURCE == INCLPROF__CLOCK_SOURCE__CLOCK_TSC && !ip_process_is_child())
    ip_tls.tsc = IP_TSC_ON; /* the runtime's ticks read it again; the thread stays stopped */
}
