/* export/folded.h - `inclprof export --format folded`: folded stacks, one
 * "outer;...;leaf VALUE" line per call path, for flame graph tools
 * (flamegraph.pl, speedscope, inferno). */
#ifndef INCLPROF_EXPORT_FOLDED_H
#define INCLPROF_EXPORT_FOLDED_H

#include <stdio.h>

#include "export/exporter.h"
#include "model/model.h"

/* Writes the threads o selects.  VALUE is the path's exclusive --value
 * (elapsed or application nanoseconds, or samples), so the lines sum to the
 * selected threads' total.  Unless --merge-threads, every stack starts with a
 * frame naming its thread; time spent with no function on the stack is that
 * frame alone (merged: the frame "(no function)").  Paths whose value is 0
 * are left out; ';' and line breaks in names become ',' and ' '. */
void ip_export_folded(const ip_session *s, const ip_export_opts *o, FILE *out);

#endif
