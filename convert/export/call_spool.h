/* export/call_spool.h - records kept in the order they are put and read
 * back once in that order: in memory up to a bound, past it appended to an
 * unlinked temporary file ($TMPDIR, else /tmp), so memory stays bounded on
 * any trace.  The Chrome export keeps its accepted calls here between the
 * one replay that sizes them and the writing of those that fit. */
#ifndef INCLPROF_EXPORT_CALL_SPOOL_H
#define INCLPROF_EXPORT_CALL_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct ip_spool ip_spool;

/* The integers of spooled records: varints, and signed differences
 * zigzag-coded.  A spool's bytes are its own, so they are read unchecked. */
static inline uint8_t *ip_spool_put_varint(uint8_t *p, uint64_t v) {
  for (; v >= 0x80; v >>= 7)
    *p++ = (uint8_t)(v | 0x80);
  *p++ = (uint8_t)v;
  return p;
}
static inline const uint8_t *ip_spool_get_varint(const uint8_t *p, uint64_t *v) {
  uint64_t x = *p++;
  if (x >= 0x80) { /* most are one byte: a function, a depth, a difference */
    x &= 0x7f;
    for (unsigned shift = 7;; shift += 7) {
      x |= (uint64_t)(*p & 0x7f) << shift;
      if (!(*p++ & 0x80))
        break;
    }
  }
  *v = x;
  return p;
}
static inline uint64_t ip_spool_zigzag(uint64_t d) {
  return d << 1 ^ (uint64_t) - (int64_t)(d >> 63);
}
static inline uint64_t ip_spool_unzigzag(uint64_t z) {
  return z >> 1 ^ (uint64_t) - (int64_t)(z & 1);
}

/* A spool holding at most max_in_memory bytes in memory. */
ip_spool *ip_spool_new(size_t max_in_memory);
/* Appends the n bytes at rec. */
void ip_spool_put(ip_spool *sp, const void *rec, size_t n);
/* Room for a record of at most `most` bytes at the spool's end, to be
 * written there and appended by ip_spool_commit with its length. */
void *ip_spool_room(ip_spool *sp, size_t most);
void ip_spool_commit(ip_spool *sp, size_t n);
/* The next n bytes, in the order they were put, into rec: 1, or 0 at the
 * end.  The first read ends the putting. */
int ip_spool_get(ip_spool *sp, void *rec, size_t n);
/* The next n bytes in place (valid until the next read), or NULL at the
 * end; as ip_spool_get. */
const void *ip_spool_next(ip_spool *sp, size_t n);
void ip_spool_free(ip_spool *sp);

/* An unlinked temporary file in $TMPDIR (else /tmp), or -1 (errno set). */
int ip_temp_fd(void);
/* The same, or -1 after one line on stderr saying every call stays in
 * memory. */
int ip_spool_temp_file(void);
/* Reads n bytes at offset at of such a file into p; on an I/O error (the file
 * is this process's own) one line on stderr and exit 1. */
void ip_spool_read_back(int fd, void *p, size_t n, off_t at);

#endif
