/* export/pprof.h - `inclprof export --format pprof`: a gzipped pprof
 * profile.proto (proto/profile.proto) with one sample per call path. */
#ifndef INCLPROF_EXPORT_PPROF_H
#define INCLPROF_EXPORT_PPROF_H

#include <stdio.h>

#include "export/exporter.h"
#include "model/model.h"

/* Writes the profile of the threads o selects to out.  Sample types: calls,
 * application, elapsed (nanoseconds, exclusive of each path) and, when the
 * session was sampled, samples; the type chosen by --value (elapsed by
 * default) comes last and is default_sample_type, so pprof's flat is our
 * Exclusive and its cum our Inclusive.  Returns 0, or -1 after printing a
 * one-line error naming out_name. */
int ip_export_pprof(const ip_session *s, const ip_export_opts *o, FILE *out, const char *out_name);

#endif
