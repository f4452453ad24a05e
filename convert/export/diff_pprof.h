/* export/diff_pprof.h - `inclprof diff --pprof PREFIX`: the two sides of a
 * diff as pprof profiles PREFIX.base.pb.gz and PREFIX.new.pb.gz (for
 * `go tool pprof -diff_base PREFIX.base.pb.gz PREFIX.new.pb.gz`) and their
 * difference PREFIX.diff.pb.gz (NEW - BASE, negative values where time went
 * down).  One frame per row: pprof's flat is the median Exclusive time
 * (Elapsed, or Application with --value application). */
#ifndef INCLPROF_EXPORT_DIFF_PPROF_H
#define INCLPROF_EXPORT_DIFF_PPROF_H

#include "analysis/analysis.h"
#include "model/model.h"

/* Returns 0, or -1 after printing a one-line error naming the file. */
int ip_diff_write_pprof(const ip_diff *d, const char *prefix);

#endif
