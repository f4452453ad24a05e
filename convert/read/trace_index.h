/* read/trace_index.h - the Index, Trailer and Footer a trace file ends with
 * when its writer ended normally (docs/trace-format.md, "Index and Footer"):
 * read from the file's last bytes alone. */
#ifndef INCLPROF_TRACE_INDEX_H
#define INCLPROF_TRACE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "inclprof.pb-c.h"

typedef struct ip_trace_end {
  Inclprof__Record *index;   /* Record{index} */
  Inclprof__Record *trailer; /* Record{trailer} */
  /* When the Trailer tells that recording stopped early: the Trailer of the
   * stop, when another Index, Trailer and Footer end right before the Index
   * (the exit's, written after the stop); else NULL. */
  Inclprof__Record *stop_trailer;
} ip_trace_end;

/* Reads the end of the trace file at path: 0 with e's records, or -1 with
 * why the file cannot be described from its end in why (no footer, and
 * whether a Trailer ends it; a damaged footer, index or trailer; an index
 * that does not match the file or is incomplete). */
int ip_trace_end_read(const char *path, ip_trace_end *e, char *why, size_t whylen);
void ip_trace_end_free(ip_trace_end *e);

#endif
