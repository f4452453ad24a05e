/* read/trace_tail.c - the Trailer a trace file ends with, read from its last
 * bytes alone (the frame whose length and CRC end exactly at the end of the
 * file, or at the Footer that ends a file with an index), so that `record`
 * can tell how each process's recording ended without reading the whole
 * trace. */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame_read.h"
#include "read/trace_tail.h"
#include "trace_footer.h"

#define TAIL 1024 /* a Trailer frame is far smaller */

/* The frame that starts at p and ends exactly at end, decoded; NULL if none. */
static Inclprof__Record *frame_ending_at(const uint8_t *p, const uint8_t *end) {
  ip_frame_view f;
  if (ip_frame_read(p, (size_t)(end - p), &f) != IP_FRAME_OK || f.size != (size_t)(end - p))
    return NULL;
  return inclprof__record__unpack(NULL, f.record_len, f.record);
}

Inclprof__Record *ip_trace_tail_trailer(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  Inclprof__Record *found = NULL;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    uint8_t buf[TAIL], foot[IP_FOOTER_FRAME_LEN];
    uint32_t ib, tb;
    off_t end = st.st_size;
    if (end >= (off_t)sizeof foot &&
        pread(fd, foot, sizeof foot, end - (off_t)sizeof foot) == (ssize_t)sizeof foot &&
        ip_footer_decode(foot, &ib, &tb))
      end -= (off_t)sizeof foot;
    size_t n = end < TAIL ? (size_t)end : TAIL;
    if (pread(fd, buf, n, end - (off_t)n) == (ssize_t)n)
      for (size_t at = 0; at + 5 <= n && !found; at++) {
        found = frame_ending_at(buf + at, buf + n);
        if (found && found->body_case != INCLPROF__RECORD__BODY_TRAILER) {
          inclprof__record__free_unpacked(found, NULL);
          found = NULL;
        }
      }
  }
  close(fd);
  return found;
}
