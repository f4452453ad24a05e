/* fuzz_trace.c - libFuzzer target for the converter's loader and replay: each
 * input is written to a memory file and loaded like a trace on disk; a trace
 * that loads must keep the values' invariants (an abort otherwise).  The
 * custom mutator and crossover (trace_mutator.c) edit frames, records and
 * event arrays and write fresh lengths and checksums, so that the fuzzer
 * reaches the record decoder and the replay, not only the crc check.
 * Built by `make fuzz` (clang -fsanitize=fuzzer), or with fuzz_standalone.c
 * as its driver where libFuzzer is missing. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/aggregate.h"
#include "model/profile.h"
#include "trace_mutator.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed);

/* The rules every loaded session keeps ("The values" in docs/converter.md). */
static void check_invariants(const ip_session *s) {
  ip_row *rows;
  size_t n = ip_aggregate(s, IP_BY_FUNCTION, NULL, &rows);
  for (size_t i = 0; i < n; i++) {
    const ip_values *v = &rows[i].v;
    if (v->el_excl > v->el_incl || v->app_incl > v->el_incl || v->app_excl > v->app_incl ||
        v->el_incl > s->total.el_incl || v->smp_excl > v->smp_incl ||
        v->smp_incl > s->total.smp_incl || (v->calls && v->min_call > v->max_call))
      abort();
  }
  free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("trace", 0);
  if (fd < 0)
    return 0;
  if (write(fd, data, size) == (ssize_t)size) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    char *p = path;
    char error[512];
    ip_load_opts o = {.quiet = 1, .raw = size & 1, .error = error, .error_len = sizeof error};
    ip_session s;
    if (ip_session_load(&s, &p, 1, &o) == 0) {
      check_invariants(&s);
      ip_session_free(&s);
    }
  }
  close(fd);
  return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  return ip_trace_mutate(data, size, max_size, seed);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed) {
  return ip_trace_crossover(d1, s1, d2, s2, out, max_out, seed);
}
