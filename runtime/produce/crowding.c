/* crowding.c - whether the program's threads keep every CPU busy, so that a
 * writer thread would only take CPU time from them.  Time is cut into
 * windows of CROWD_WINDOW_SECONDS; a thread that fills a buffer counts once
 * in its window.  When as many threads as the process may run on CPUs
 * (its affinity mask) filled a buffer in the last complete window, the
 * process counts as crowded until the next window ends.  Lock-free: a few
 * atomics touched once per full buffer (16 384 events). */
#include <sched.h>
#include <unistd.h>

#include "produce/produce.h"

#define CROWD_WINDOW_SECONDS 0.005

static unsigned n_cpus = 1;
static atomic_uint window = 1; /* a thread's crowd_window starts at 0: it counts at once */
static atomic_uint_fast64_t window_start;
static atomic_uint fillers[2]; /* threads that filled a buffer, by window parity */
static atomic_int crowded;

void ip_crowding_init(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
    n_cpus = (unsigned)CPU_COUNT(&set);
  } else {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    n_cpus = online > 0 ? (unsigned)online : 1;
  }
}

int ip_crowding_note(struct ip_rt_thread *t, uint64_t now) {
  uint64_t length = (uint64_t)(ip_st.ticks_per_second * CROWD_WINDOW_SECONDS);
  uint_fast64_t start = atomic_load(&window_start);
  unsigned w = atomic_load(&window);
  /* now < start: another CPU's tick, read a moment earlier */
  if (now > start && now - start >= length &&
      atomic_compare_exchange_strong(&window_start, &start, now)) {
    /* this thread closes window w: its count decides until w + 1 ends */
    atomic_store(&crowded, atomic_load(&fillers[w & 1]) >= n_cpus);
    atomic_store(&fillers[(w + 1) & 1], 0);
    atomic_store(&window, ++w);
  }
  if (t->crowd_window != w) {
    t->crowd_window = w;
    atomic_fetch_add(&fillers[w & 1], 1);
  }
  return atomic_load(&crowded);
}

/* In a fork child only the forking thread runs. */
void ip_crowding_after_fork_child(void) {
  atomic_store(&fillers[0], 0);
  atomic_store(&fillers[1], 0);
  atomic_store(&crowded, 0);
  ip_crowding_init();
}
