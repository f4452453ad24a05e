/* kevents_save_bench.c - the cost of saving a thread's kevents records at a
 * flush (`make bench-kevents-save`): runtime/produce/kevents.c's ip_kevents_save on
 * a ring built in memory with the runtime's geometry (16 data pages) and
 * records as the kernel writes them (24 bytes: header, sample id, time), full
 * and empty; best of 200 runs each.  Prints a Markdown table on stdout. */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "produce/produce.h"

enum { DATA_PAGES = 16, RUNS = 200, PF_ID = 77, SYS_ID = 5 };

static struct ip_rt_thread t;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Appends n records (system calls and page faults alternately). */
static void fill(uint8_t *data, uint64_t size, uint64_t n) {
  struct perf_event_mmap_page *pg = t.ring;
  uint64_t tm = now_ns();
  for (uint64_t i = 0; i < n; i++) {
    uint64_t pos = pg->data_head, h = PERF_RECORD_SAMPLE | (uint64_t)24 << 48;
    const uint64_t f[3] = {h, i & 1 ? PF_ID : SYS_ID, tm + i};
    for (int k = 0; k < 3; k++)
      memcpy(data + ((pos + 8 * (uint64_t)k) & (size - 1)), &f[k], 8);
    pg->data_head = pos + 24;
  }
}

/* Best time of RUNS saves of n new records each, ns; -1 if a save went wrong. */
static double best_save(uint8_t *data, uint64_t size, uint64_t n) {
  uint64_t best = UINT64_MAX;
  for (int r = 0; r < RUNS; r++) {
    fill(data, size, n);
    uint64_t a = now_ns();
    ip_kevents_save(&t);
    uint64_t b = now_ns();
    if (t.kev_n != n || t.kev_lost)
      return -1;
    if (b - a < best)
      best = b - a;
  }
  return (double)best;
}

int main(void) {
  long pg = sysconf(_SC_PAGESIZE);
  t.ring_len = (size_t)pg * (1 + DATA_PAGES);
  t.ring = mmap(NULL, t.ring_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (t.ring == MAP_FAILED)
    return 1;
  ip_st.ticks_per_second = 1e9;
  ip_kevents_open(&t, PF_ID);
  uint8_t *data = (uint8_t *)t.ring + pg;
  uint64_t size = (uint64_t)pg * DATA_PAGES, full = size / 24;
  double f = best_save(data, size, full), e = best_save(data, size, 0);
  if (f < 0 || e < 0) {
    fprintf(stderr, "kevents_save_bench: a save did not return the records written\n");
    return 1;
  }
  printf("## Saving kevents records at a flush (best of %d)\n\n", RUNS);
  printf("| records since the previous flush | ns per save | ns per record |\n|---:|---:|---:|\n");
  printf("| %llu (a full ring) | %.0f | %.2f |\n", (unsigned long long)full, f, f / (double)full);
  printf("| 0 | %.0f | |\n", e);
  return 0;
}
