/* text_gen.c - writes deterministic pseudo-random text: words are built from
 * a small syllable table, chosen with a skewed (roughly Zipf-like)
 * distribution so that some words are much more frequent than others.  The
 * text goes through a 64 KiB buffer and write(2), then fsync(2), so the
 * program really spends time in the kernel. */
#include "text_gen.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Each syllable padded to 4 bytes so it is copied with one fixed-size store. */
static const struct {
  char text[4];
  unsigned char len;
} syllables[] = {
    {"ka", 2},  {"lo", 2},  {"mi", 2},  {"nu", 2},  {"re", 2}, {"sa", 2},   {"ti", 2},
    {"vo", 2},  {"wen", 3}, {"dra", 3}, {"el", 2},  {"or", 2}, {"quin", 4}, {"zu", 2},
    {"bar", 3}, {"fe", 2},  {"gor", 3}, {"hal", 3}, {"ix", 2}, {"jo", 2},
};
#define N_SYLLABLES (sizeof syllables / sizeof syllables[0])

struct out_buf {
  int fd;
  size_t used;
  char data[65536];
};

static unsigned next_random(unsigned *state) {
  unsigned x = *state; /* xorshift32 */
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

static int flush_out(struct out_buf *out) {
  size_t done = 0;
  while (done < out->used) {
    ssize_t n = write(out->fd, out->data + done, out->used - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    done += (size_t)n;
  }
  out->used = 0;
  return 0;
}

/* Appends one word of 1-3 syllables (writing up to 3 bytes of padding past
 * it); small indices are much more likely. */
static size_t make_word(char *dst, unsigned *state) {
  unsigned r = next_random(state);
  unsigned n_syl = 1 + (r & 3) % 3;
  size_t len = 0;
  for (unsigned i = 0; i < n_syl; i++) {
    unsigned s = next_random(state);
    unsigned idx = (s % N_SYLLABLES) * ((s >> 8) % N_SYLLABLES) / N_SYLLABLES;
    memcpy(dst + len, syllables[idx].text, 4);
    len += syllables[idx].len;
  }
  return len;
}

int text_generate_file(const char *path, unsigned long lines, unsigned seed) {
  static struct out_buf out;
  unsigned state = seed ? seed : 2463534242u;
  out.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  out.used = 0;
  if (out.fd < 0)
    return -1;
  for (unsigned long l = 0; l < lines; l++) {
    unsigned words = 6 + next_random(&state) % 10;
    for (unsigned w = 0; w < words; w++) {
      if (sizeof out.data - out.used < 64 && flush_out(&out) < 0)
        goto fail;
      out.used += make_word(out.data + out.used, &state);
      out.data[out.used++] = w + 1 < words ? ' ' : '\n';
    }
  }
  if (flush_out(&out) < 0 || fsync(out.fd) < 0)
    goto fail;
  return close(out.fd);
fail : {
  int saved = errno;
  close(out.fd);
  errno = saved;
  return -1;
}
}
