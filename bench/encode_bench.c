/* encode_bench.c - the cost of encoding one full buffer (`make bench-encode`):
 * what the writer thread does per buffer, or a program's thread with
 * INCLPROF_WRITER=inline - runtime/produce/flush.c's ip_encode_batch (gids, the batch,
 * its CRC, the write) and leaving the buffer ready for reuse - on 16 384
 * events of a made-up call tree (a transition on 1 event in 200), the same
 * events every run.  Two kinds of program:
 *   callheavy  8 functions, intervals as bench/callheavy.c gives (99 % of
 *              8-59 ticks, 1 % up to 10 000): about 2 bytes per event;
 *   spread     400 functions, each calling 4 others or itself, 70 % of the
 *              intervals 8-59 ticks and 30 % up to 2 000: 2-byte codes and
 *              many 2-byte intervals, about 3.4 bytes per event like the
 *              real programs of the README's "Real programs".
 *   usage: encode_bench OUT_DIR callheavy|spread [RUNS]   (RUNS 200)
 * Prints "ns_per_event N", "us_per_buffer N" (best run), "bytes_per_event N"
 * and "events N" (per run); bench/encode.sh adds the instruction count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "produce/produce.h"

enum { FNS = 400 };
static struct inclprof_fn d[FNS];
static const struct inclprof_fn *fns[FNS];
static struct inclprof_tu tu = {INCLPROF_ABI_VERSION, FNS, fns, __FILE__, {0}};

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void) { /* xorshift64 */
  rnd_state ^= rnd_state << 13;
  rnd_state ^= rnd_state >> 7;
  rnd_state ^= rnd_state << 17;
  return rnd_state;
}

/* n events of a random call tree over the first fns functions: ENTER of a
 * function (the caller's own, recursion, in a quarter of the calls; else one
 * of 4 callees of the caller) or EXIT of the innermost one.  long_pct of the
 * intervals are 60..long_max ticks, the others 8..59. */
static void make_events(struct ip_event *ev, size_t n, unsigned fns, unsigned long_pct,
                        unsigned long_max) {
  const struct inclprof_fn *stack[64];
  int depth = 0;
  uint64_t tick = 1000000;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rnd();
    tick += r % 100 < long_pct ? 60 + r / 128 % (long_max - 59) : 8 + r / 128 % 52;
    uint64_t t_bit = r / 65536 % 200 == 0 ? IP_T_BIT : 0;
    int leave = depth == 64 || (depth > 0 && r / 1024 % 2);
    if (leave) {
      ev[i].arg = (uint64_t)(uintptr_t)stack[--depth] | IP_K_EXIT;
    } else {
      size_t caller = depth ? (size_t)(stack[depth - 1] - d) : 0;
      const struct inclprof_fn *f =
          depth && r / 2048 % 4 == 0 ? stack[depth - 1] : &d[(caller * 7 + 1 + r / 8192 % 4) % fns];
      stack[depth++] = f;
      ev[i].arg = (uint64_t)(uintptr_t)f; /* kind IP_K_ENTER: 0 */
    }
    ev[i].tick = tick | t_bit;
  }
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One buffer as the writer thread handles it (writer.c, write_job): the
 * encoding also leaves every arg 0, ready for reuse. */
__attribute__((noinline)) void encode_one(uint8_t *scratch, struct ip_event *buf, size_t n,
                                          uint64_t seq) {
  struct ip_kev_list kl = {NULL, 0, 0, 0};
  ip_encode_batch(scratch, IP_SCRATCH_BYTES, 1, seq, buf, n, &kl, 0);
}

int main(int argc, char **argv) {
  int spread = argc > 2 && !strcmp(argv[2], "spread");
  if (argc < 3 || (!spread && strcmp(argv[2], "callheavy"))) {
    fprintf(stderr, "usage: encode_bench OUT_DIR callheavy|spread [RUNS]\n");
    return 2;
  }
  int runs = argc > 3 ? atoi(argv[3]) : 200;
  mkdir(argv[1], 0755);
  setenv("INCLPROF_OUTPUT", argv[1], 1);
  setenv("INCLPROF_TRANSITIONS", "none", 1);
  ip_settings_reread();
  static char names[FNS][16];
  for (int i = 0; i < FNS; i++) {
    snprintf(names[i], sizeof names[i], "f%d", i);
    d[i] = (struct inclprof_fn){
        (uint64_t)i + 1,          names[i], names[i], __FILE__, 10u * (unsigned)i, 5,
        INCLPROF_FN_INSTRUMENTED, 0,        NULL};
    fns[i] = &d[i];
  }
  __inclprof_register_tu(&tu);
  size_t n = IP_BUF_EVENTS;
  struct ip_event *tmpl = malloc(n * sizeof *tmpl), *buf = ip_buffer_new();
  uint8_t *scratch = malloc(IP_SCRATCH_BYTES);
  if (!tmpl || !buf || !scratch)
    return 1;
  if (spread)
    make_events(tmpl, n, FNS, 30, 2000);
  else
    make_events(tmpl, n, 8, 1, 10000);
  uint64_t best = UINT64_MAX, bytes0 = ip_trace_bytes_written(), seq = 0;
  for (int r = 0; r < runs; r++) {
    memcpy(buf, tmpl, n * sizeof *buf);
    uint64_t a = now_ns();
    encode_one(scratch, buf, n, seq++);
    uint64_t b = now_ns();
    if (b - a < best)
      best = b - a;
  }
  double bytes = (double)(ip_trace_bytes_written() - bytes0) / runs;
  printf("events %zu\nns_per_event %.2f\nus_per_buffer %.1f\nbytes_per_event %.3f\n", n,
         (double)best / (double)n, (double)best / 1000, bytes / (double)n);
  return 0;
}
