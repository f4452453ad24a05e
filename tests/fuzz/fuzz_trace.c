/* fuzz_trace.c - libFuzzer target for the converter's loader and replay: each
 * input is written to a memory file and loaded like a trace on disk.  The
 * custom mutator repairs frame checksums after most mutations, so that the
 * fuzzer reaches the record decoder and the replay, not only the crc check.
 * Built by `make fuzz` (clang -fsanitize=fuzzer), or with fuzz_standalone.c
 * as its driver where libFuzzer is missing. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/profile.h"
#include "trace_gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

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
    if (ip_session_load(&s, &p, 1, &o) == 0)
      ip_session_free(&s);
  }
  close(fd);
  return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  size = LLVMFuzzerMutate(data, size, max_size);
  if (seed % 8) /* one in eight keeps its broken checksums */
    tg_fix_crcs(data, size);
  return size;
}
