/* export/callgrind.h - `inclprof export --format callgrind`: a callgrind
 * profile (events Elapsed, Application, Calls and, when sampled, Samples)
 * for KCachegrind and callgrind_annotate. */
#ifndef INCLPROF_EXPORT_CALLGRIND_H
#define INCLPROF_EXPORT_CALLGRIND_H

#include <stdio.h>

#include "export/exporter.h"
#include "model/model.h"

/* Writes the threads o selects.  Each function's self cost is our Exclusive
 * value; its calls= lines carry inclusive costs chosen so that the sum of a
 * function's incoming call costs is our Inclusive value (a recursive call
 * adds no cost twice).  Every thread (--merge-threads: all of them together)
 * is a root function "thread TID (NAME)" that calls the thread's outermost frames and
 * owns the time spent outside any function, so every real function has
 * callers and the file's totals are the threads' totals. */
void ip_export_callgrind(const ip_session *s, const ip_export_opts *o, FILE *out);

#endif
