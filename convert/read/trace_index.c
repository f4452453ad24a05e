/* read/trace_index.c - the Index, Trailer and Footer a trace file ends with:
 * the fixed-size Footer in the last 17 bytes gives the lengths of the
 * Trailer and Index frames before it, read with one more pread; each frame's
 * CRC is checked and the Index's offset must be where its frame lies.  A
 * file whose recording stopped at a limit ends with two of them (the stop's,
 * then the exit's): the stop's Trailer is read too. */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame_read.h"
#include "read/trace_index.h"
#include "read/trace_tail.h"
#include "trace_footer.h"
#include "trace_frame.h"

#define MAX_END_BYTES (256u << 20) /* an Index and Trailer together stay far below */

/* The frame of exactly len bytes at p, decoded when its CRC matches and it
 * is a Record of that kind; NULL otherwise. */
static Inclprof__Record *frame_of(const uint8_t *p, size_t len, Inclprof__Record__BodyCase kind) {
  ip_frame_view f;
  if (ip_frame_read(p, len, &f) != IP_FRAME_OK || f.size != len)
    return NULL;
  Inclprof__Record *rec = inclprof__record__unpack(NULL, f.record_len, f.record);
  if (rec && rec->body_case != kind) {
    inclprof__record__free_unpacked(rec, NULL);
    rec = NULL;
  }
  return rec;
}

/* Why a file without a footer cannot be described from its end. */
static void no_footer(const char *path, char *why, size_t whylen) {
  Inclprof__Record *t = ip_trace_tail_trailer(path);
  snprintf(why, whylen, "%s",
           t ? "it has no index (written by an older runtime, under the ring size policy, or "
               "without room under its size limit)"
             : "it does not end with a Trailer (the process was killed, or is still running)");
  if (t)
    inclprof__record__free_unpacked(t, NULL);
}

/* The Trailer of the Footer that ends at byte end, or NULL. */
static Inclprof__Record *trailer_before(int fd, off_t end) {
  uint8_t foot[IP_FOOTER_FRAME_LEN];
  uint32_t ib, tb;
  if (end < IP_TRACE_PREAMBLE_LEN + (off_t)sizeof foot ||
      pread(fd, foot, sizeof foot, end - (off_t)sizeof foot) != (ssize_t)sizeof foot ||
      !ip_footer_decode(foot, &ib, &tb) || !tb || tb > MAX_END_BYTES ||
      end - (off_t)sizeof foot - (off_t)tb < IP_TRACE_PREAMBLE_LEN)
    return NULL;
  uint8_t *buf = malloc(tb);
  Inclprof__Record *t = NULL;
  if (buf && pread(fd, buf, tb, end - (off_t)sizeof foot - (off_t)tb) == (ssize_t)tb)
    t = frame_of(buf, tb, INCLPROF__RECORD__BODY_TRAILER);
  free(buf);
  return t;
}

static int read_end(int fd, off_t size, const char *path, ip_trace_end *e, char *why,
                    size_t whylen) {
  uint8_t foot[IP_FOOTER_FRAME_LEN];
  uint32_t ib, tb;
  if (size < IP_TRACE_PREAMBLE_LEN + (off_t)sizeof foot ||
      pread(fd, foot, sizeof foot, size - (off_t)sizeof foot) != (ssize_t)sizeof foot ||
      !ip_footer_decode(foot, &ib, &tb)) {
    no_footer(path, why, whylen);
    return -1;
  }
  uint64_t need = (uint64_t)ib + tb;
  off_t at = size - (off_t)sizeof foot - (off_t)need;
  if (!ib || !tb || need > MAX_END_BYTES || at < IP_TRACE_PREAMBLE_LEN) {
    snprintf(why, whylen, "its index is damaged: the footer gives %u + %u bytes, beyond the file",
             ib, tb);
    return -1;
  }
  uint8_t *buf = malloc(need);
  if (!buf || pread(fd, buf, need, at) != (ssize_t)need) {
    snprintf(why, whylen, "its end cannot be read: %s", strerror(buf ? errno : ENOMEM));
    free(buf);
    return -1;
  }
  e->index = frame_of(buf, ib, INCLPROF__RECORD__BODY_INDEX);
  e->trailer = frame_of(buf + ib, tb, INCLPROF__RECORD__BODY_TRAILER);
  free(buf);
  if (!e->index || !e->trailer) {
    snprintf(why, whylen,
             "its index is damaged: the %s frame before the footer fails its CRC or "
             "does not decode",
             e->index ? "Trailer" : "Index");
    return -1;
  }
  const Inclprof__Index *ix = e->index->index;
  if (ix->offset != (uint64_t)at) {
    snprintf(why, whylen,
             "its index does not match the file: it describes %llu bytes before it, the file has "
             "%llu",
             (unsigned long long)ix->offset, (unsigned long long)at);
    return -1;
  }
  if (ix->incomplete) {
    snprintf(why, whylen, "its index is incomplete: %s", ix->incomplete);
    return -1;
  }
  const char *stopped = e->trailer->trailer->write_error;
  if (stopped && *stopped)
    e->stop_trailer = trailer_before(fd, at);
  return 0;
}

int ip_trace_end_read(const char *path, ip_trace_end *e, char *why, size_t whylen) {
  memset(e, 0, sizeof *e);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(why, whylen, "it cannot be read: %s", strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  int rc = read_end(fd, st.st_size, path, e, why, whylen);
  close(fd);
  if (rc)
    ip_trace_end_free(e);
  return rc;
}

void ip_trace_end_free(ip_trace_end *e) {
  if (e->index)
    inclprof__record__free_unpacked(e->index, NULL);
  if (e->trailer)
    inclprof__record__free_unpacked(e->trailer, NULL);
  if (e->stop_trailer)
    inclprof__record__free_unpacked(e->stop_trailer, NULL);
  e->index = e->trailer = e->stop_trailer = NULL;
}
