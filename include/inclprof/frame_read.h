/* frame_read.h - reading the trace file's frames (varint length, Record
 * bytes, CRC-32; trace_frame.h writes them) from bytes in memory: the one
 * reader of frames.  The converter's stream reader and its search for the
 * next frame after damage, the trace's tail (Index, Trailer, Footer), the
 * runtime's index and ring policy (walking the frames they have just
 * written) and the fuzzers' mutator all go through it.  No allocation. */
#ifndef INCLPROF_FRAME_READ_H
#define INCLPROF_FRAME_READ_H

#include <stddef.h>
#include <stdint.h>

/* Largest Record a reader accepts: far above anything the runtime writes (a
 * batch holds at most a few hundred KiB), small enough to refuse garbage
 * lengths. */
#define IP_FRAME_MAX_RECORD (64u << 20)
#define IP_FRAME_HEAD_MAX   10u /* bytes of the longest length varint */

/* What is wrong with the bytes where a frame should be. */
typedef enum ip_frame_fault {
  IP_FRAME_OK = 0,
  IP_FRAME_CUT_LENGTH,  /* the bytes end inside the length */
  IP_FRAME_LONG_LENGTH, /* the length's varint runs past IP_FRAME_HEAD_MAX bytes */
  IP_FRAME_HUGE,        /* the length is above IP_FRAME_MAX_RECORD */
  IP_FRAME_CUT_RECORD,  /* the bytes end inside the record or its CRC */
  IP_FRAME_BAD_CRC      /* the CRC is not the record's */
} ip_frame_fault;

/* One frame in memory. */
typedef struct ip_frame_view {
  const uint8_t *record; /* the Record's bytes */
  size_t record_len;
  size_t size; /* the whole frame: length, record and CRC */
} ip_frame_view;

/* What a reader says of fault, e.g. "crc mismatch (corrupted record)". */
const char *ip_frame_fault_text(ip_frame_fault fault);

/* The length of the frame starting at p[0..n): the record's bytes in
 * *record_len, the length's own bytes in *head_len. */
ip_frame_fault ip_frame_length(const uint8_t *p, size_t n, uint64_t *record_len, size_t *head_len);

/* The frame starting at p[0..n), its CRC not checked (frames the caller has
 * just written). */
ip_frame_fault ip_frame_next(const uint8_t *p, size_t n, ip_frame_view *f);

/* The frame starting at p[0..n), its CRC checked. */
ip_frame_fault ip_frame_read(const uint8_t *p, size_t n, ip_frame_view *f);

/* Whether the IP_FRAME_CRC_LEN bytes after record[0..len) are its CRC. */
int ip_frame_crc_ok(const uint8_t *record, size_t len);

/* After damage: the first offset below scan_to in p[0..n) at which a frame
 * starts whose record begins with a Record body field and whose CRC
 * matches, followed by another such frame or, when at_end (n is the end of
 * the file), by nothing.  scan_to when there is none. */
size_t ip_frame_find(const uint8_t *p, size_t n, size_t scan_to, int at_end);

#endif
