/* read/trace_tail.h - the Trailer record a trace file ends with. */
#ifndef INCLPROF_TRACE_TAIL_H
#define INCLPROF_TRACE_TAIL_H

#include "inclprof.pb-c.h"

/* The Record holding the file's final Trailer, or NULL when the file does
 * not end with one (still being written, killed).  Free it with
 * inclprof__record__free_unpacked(rec, NULL). */
Inclprof__Record *ip_trace_tail_trailer(const char *path);

#endif
