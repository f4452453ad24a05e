/* read/trace_reader.h - streaming reader of one trace file: checks the preamble,
 * then hands out Records one at a time, verifying each frame's length and
 * crc32.  Memory is bounded by the largest record (and a search window).
 * A damaged frame (bad crc, bad length, undecodable record) is skipped up to
 * the next valid frame, and the skip is counted (ip_reader_skipped); damage
 * with no valid frame after it (a file cut short) ends the stream with a
 * message naming the file and the byte offset: everything before it stays
 * usable. */
#ifndef INCLPROF_TRACE_READER_H
#define INCLPROF_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "inclprof.pb-c.h"

typedef struct ip_reader ip_reader;

/* Opens path.  On failure returns NULL and writes a one-line message
 * ("FILE: what is wrong") into err: unreadable, empty, not a trace (bad magic),
 * unsupported major version. */
ip_reader *ip_reader_open(const char *path, char *err, size_t errlen);

/* Next record.  Returns 1 with *rec set (valid until the next call or close),
 * 0 at a clean end of file, -1 on damage with a one-line message in err
 * ("FILE: offset N: what is wrong").  After -1 every call returns -1. */
int ip_reader_next(ip_reader *r, Inclprof__Record **rec, char *err, size_t errlen);

/* The bytes of one event batch record, not yet decoded. */
typedef struct ip_raw_batch {
  uint8_t *p;
  size_t len, cap; /* p[0..len) of cap bytes allocated */
  uint32_t tid;    /* the batch's thread */
} ip_raw_batch;

/* As ip_reader_next, but an event batch that ip_batch_decode (read/batch_decode.h)
 * will decode is checked (length, crc32, wire structure) and not decoded:
 * returns 2 with its bytes swapped into *raw (the reader keeps raw's old
 * buffer).  Damage is found at the same record as by ip_reader_next. */
int ip_reader_next_raw(ip_reader *r, Inclprof__Record **rec, ip_raw_batch *raw, char *err,
                       size_t errlen);

uint64_t ip_reader_offset(const ip_reader *r); /* bytes consumed so far */

/* The damaged stretches passed over so far. */
typedef struct ip_reader_skips {
  uint64_t regions, bytes; /* how many, and their bytes in all */
  uint64_t first_at;       /* offset of the first */
  char first_why[96];      /* what was wrong with it */
} ip_reader_skips;
const ip_reader_skips *ip_reader_skipped(const ip_reader *r);
unsigned ip_reader_minor(const ip_reader *r); /* format minor version */
const char *ip_reader_path(const ip_reader *r);
void ip_reader_close(ip_reader *r);

#endif
