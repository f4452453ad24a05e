/* gen_frames.h - what the synthetic trace writers (gen_trace.c,
 * gen_session.c) share: their random numbers (xorshift, deterministic from
 * the seed in rng) and the writing of one record as one frame.  GEN_NAME is
 * the program's name for its error messages. */
#ifndef INCLPROF_GEN_FRAMES_H
#define INCLPROF_GEN_FRAMES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "inclprof.pb-c.h"
#include "trace_frame.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint32_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 32);
}

static uint8_t *frame_buf;
static size_t frame_cap;

/* Writes r as one frame; its length. */
static size_t put(FILE *f, const Inclprof__Record *r) {
  size_t need = ip_frame_max_size(r);
  if (need > frame_cap) {
    frame_cap = need * 2;
    frame_buf = realloc(frame_buf, frame_cap);
    if (!frame_buf) {
      perror(GEN_NAME);
      exit(1);
    }
  }
  size_t n = ip_frame_encode(r, frame_buf);
  if (fwrite(frame_buf, 1, n, f) != n) {
    perror(GEN_NAME ": write");
    exit(1);
  }
  return n;
}

#endif
