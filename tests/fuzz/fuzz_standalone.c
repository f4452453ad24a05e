/* fuzz_standalone.c - a driver for fuzz_trace.c where libFuzzer is missing:
 * reads seed files, then runs N seeded random mutations (byte flips,
 * overwrites, truncation, insertion) through LLVMFuzzerCustomMutator and
 * LLVMFuzzerTestOneInput.   usage: fuzz_standalone N SEED_FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static uint64_t state = 88172645463325252ULL;
static uint32_t rnd(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (uint32_t)state;
}

/* libFuzzer's mutation primitive, in small: one random edit. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
  size_t pos = size ? rnd() % size : 0;
  switch (rnd() % 4) {
  case 0:
    if (size)
      data[pos] ^= (uint8_t)(1u << rnd() % 8);
    return size;
  case 1:
    if (size)
      data[pos] = (uint8_t)rnd();
    return size;
  case 2:
    return pos;
  default:
    if (size < max_size) {
      memmove(data + pos + 1, data + pos, size - pos);
      data[pos] = (uint8_t)rnd();
      return size + 1;
    }
    return size;
  }
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  uint8_t *buf = NULL;
  size_t cap = 0;
  *len = 0;
  for (;;) {
    if (*len == cap) {
      cap = cap ? cap * 2 : 65536;
      uint8_t *nb = realloc(buf, cap);
      if (!nb)
        break;
      buf = nb;
    }
    size_t n = fread(buf + *len, 1, cap - *len, f);
    if (!n)
      break;
    *len += n;
  }
  fclose(f);
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fuzz_standalone N SEED_FILE...\n");
    return 2;
  }
  long runs = strtol(argv[1], NULL, 10);
  for (int i = 2; i < argc; i++) {
    size_t len;
    uint8_t *seed = read_file(argv[i], &len);
    if (!seed) {
      perror(argv[i]);
      return 1;
    }
    size_t cap = len + 256;
    uint8_t *buf = malloc(cap);
    if (!buf)
      return 1;
    for (long r = 0; r < runs; r++) {
      memcpy(buf, seed, len);
      size_t n = len;
      for (uint32_t k = 0, edits = 1 + rnd() % 4; k < edits; k++)
        n = LLVMFuzzerCustomMutator(buf, n, cap, rnd());
      LLVMFuzzerTestOneInput(buf, n);
    }
    printf("fuzz_standalone: %ld mutations of %s: no crash\n", runs, argv[i]);
    free(buf);
    free(seed);
  }
  return 0;
}
