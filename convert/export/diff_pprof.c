/* export/diff_pprof.c - the pprof files of `inclprof diff` (see
 * export/diff_pprof.h): one profile each (export/pprof_builder.h), one
 * Function and Location per row, one sample per row with the values calls
 * and elapsed or application (nanoseconds: the compared Exclusive time),
 * each file written whole or not at all. */
#include "export/diff_pprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/pprof_builder.h"
#include "util/util.h"
#include "version.h"

enum { KIND_BASE, KIND_NEW, KIND_DIFF };

static int64_t value(const ip_diff *d, const ip_diff_row *r, int kind, int time) {
  int64_t b = (int64_t)(time ? ip_diff_excl(d, &r->med[0]) : r->med[0].calls);
  int64_t n = (int64_t)(time ? ip_diff_excl(d, &r->med[1]) : r->med[1].calls);
  return kind == KIND_BASE ? b : kind == KIND_NEW ? n : n - b;
}

static int write_one(const ip_diff *d, int kind, const char *path) {
  ip_pprof p;
  ip_pprof_init(&p);
  ip_pprof_sample_type(&p, "calls", "count");
  ip_pprof_sample_type(&p, d->application ? "application" : "elapsed", "nanoseconds");
  for (size_t i = 0; i < d->n; i++) {
    const ip_diff_row *r = &d->rows[i];
    ip_pprof_line line = {ip_pprof_function(&p, r->name, r->name, r->file, 0), 0};
    uint64_t loc = ip_pprof_location(&p, 0, 0, &line, 1);
    const int64_t values[2] = {value(d, r, kind, 0), value(d, r, kind, 1)};
    if (values[0] || values[1])
      ip_pprof_sample(&p, &loc, 1, values, 0);
  }
  ip_pprof_comment(&p, "inclprof " INCLPROF_VERSION " diff");
  ip_pprof_comment(&p, kind == KIND_BASE  ? "BASE: median Exclusive time per run"
                       : kind == KIND_NEW ? "NEW: median Exclusive time per run"
                                          : "NEW - BASE: change of the median Exclusive time "
                                            "per run");
  ip_output out;
  int rc = ip_output_open(&out, "diff", "--pprof", path);
  if (!rc)
    rc = ip_output_close(&out, !ip_pprof_write(&p, out.f, "diff", path));
  ip_pprof_free(&p);
  return rc;
}

int ip_diff_write_pprof(const ip_diff *d, const char *prefix) {
  static const char *const suffix[] = {"base", "new", "diff"};
  for (int k = KIND_BASE; k <= KIND_DIFF; k++) {
    size_t len = strlen(prefix) + 16;
    char *path = ip_must_calloc(len, 1);
    snprintf(path, len, "%s.%s.pb.gz", prefix, suffix[k]);
    int rc = write_one(d, k, path);
    free(path);
    if (rc)
      return -1;
  }
  return 0;
}
