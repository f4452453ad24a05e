/* export/diff_pprof.c - the pprof files of `inclprof diff` (see
 * export/diff_pprof.h): one Function and Location per row, one sample per
 * row with the values calls and elapsed or application (nanoseconds: the
 * compared Exclusive time), gzipped. */
#include "export/diff_pprof.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/strtab.h"
#include "profile.pb-c.h"
#include "util/util.h"
#include "version.h"

enum { KIND_BASE, KIND_NEW, KIND_DIFF };

static int64_t value(const ip_diff *d, const ip_diff_row *r, int kind, int time) {
  int64_t b = (int64_t)(time ? ip_diff_excl(d, &r->med[0]) : r->med[0].calls);
  int64_t n = (int64_t)(time ? ip_diff_excl(d, &r->med[1]) : r->med[1].calls);
  return kind == KIND_BASE ? b : kind == KIND_NEW ? n : n - b;
}

static int write_one(const ip_diff *d, int kind, const char *path) {
  ip_strtab st;
  ip_strtab_init(&st);
  size_t n = d->n;
  InclprofPprof__Function *fns = ip_must_calloc(n ? n : 1, sizeof *fns);
  InclprofPprof__Location *locs = ip_must_calloc(n ? n : 1, sizeof *locs);
  InclprofPprof__Line *lines = ip_must_calloc(n ? n : 1, sizeof *lines);
  InclprofPprof__Line **line_ptrs = ip_must_calloc(n ? n : 1, sizeof *line_ptrs);
  InclprofPprof__Sample *smp = ip_must_calloc(n ? n : 1, sizeof *smp);
  InclprofPprof__Function **fp = ip_must_calloc(n ? n : 1, sizeof *fp);
  InclprofPprof__Location **lp = ip_must_calloc(n ? n : 1, sizeof *lp);
  InclprofPprof__Sample **sp = ip_must_calloc(n ? n : 1, sizeof *sp);
  int64_t *vals = ip_must_calloc(2 * (n ? n : 1), sizeof *vals);
  uint64_t *loc_ids = ip_must_calloc(n ? n : 1, sizeof *loc_ids);
  size_t ns = 0;
  for (size_t i = 0; i < n; i++) {
    const ip_diff_row *r = &d->rows[i];
    inclprof_pprof__function__init(&fns[i]);
    fns[i].id = i + 1;
    fns[i].name = fns[i].system_name = ip_strtab_intern(&st, r->name);
    fns[i].filename = ip_strtab_intern(&st, r->file);
    inclprof_pprof__line__init(&lines[i]);
    lines[i].function_id = i + 1;
    line_ptrs[i] = &lines[i];
    inclprof_pprof__location__init(&locs[i]);
    locs[i].id = i + 1;
    locs[i].n_line = 1;
    locs[i].line = &line_ptrs[i];
    fp[i] = &fns[i];
    lp[i] = &locs[i];
    vals[2 * ns] = value(d, r, kind, 0);
    vals[2 * ns + 1] = value(d, r, kind, 1);
    if (!vals[2 * ns] && !vals[2 * ns + 1])
      continue;
    inclprof_pprof__sample__init(&smp[ns]);
    loc_ids[ns] = i + 1;
    smp[ns].n_location_id = 1;
    smp[ns].location_id = &loc_ids[ns];
    smp[ns].n_value = 2;
    smp[ns].value = &vals[2 * ns];
    sp[ns] = &smp[ns];
    ns++;
  }
  InclprofPprof__ValueType types[2], *tp[2];
  const char *tn[2][2] = {{"calls", "count"},
                          {d->application ? "application" : "elapsed", "nanoseconds"}};
  for (int k = 0; k < 2; k++) {
    inclprof_pprof__value_type__init(&types[k]);
    types[k].type = ip_strtab_intern(&st, tn[k][0]);
    types[k].unit = ip_strtab_intern(&st, tn[k][1]);
    tp[k] = &types[k];
  }
  int64_t comment[2];
  comment[0] = ip_strtab_intern(&st, "inclprof " INCLPROF_VERSION " diff");
  comment[1] = ip_strtab_intern(&st, kind == KIND_BASE  ? "BASE: median Exclusive time per run"
                                     : kind == KIND_NEW ? "NEW: median Exclusive time per run"
                                                        : "NEW - BASE: change of the median "
                                                          "Exclusive time per run");
  InclprofPprof__Profile p = INCLPROF_PPROF__PROFILE__INIT;
  p.n_sample_type = 2;
  p.sample_type = tp;
  p.default_sample_type = types[1].type;
  p.n_sample = ns;
  p.sample = sp;
  p.n_function = p.n_location = n;
  p.function = fp;
  p.location = lp;
  p.n_comment = 2;
  p.comment = comment;
  p.n_string_table = st.n;
  p.string_table = st.strs;
  size_t len = inclprof_pprof__profile__get_packed_size(&p);
  uint8_t *buf = ip_must_calloc(len ? len : 1, 1);
  inclprof_pprof__profile__pack(&p, buf);
  int rc = 0;
  gzFile gz = gzopen(path, "wb");
  int bad = !gz;
  if (gz) {
    bad = len && gzwrite(gz, buf, (unsigned)len) != (int)len;
    bad |= gzclose(gz) != Z_OK;
  }
  if (bad) {
    fprintf(stderr, "inclprof diff: cannot write %s: %s\n", path,
            errno ? strerror(errno) : "zlib error");
    rc = -1;
  }
  free(buf);
  free(fns);
  free(locs);
  free(lines);
  free(line_ptrs);
  free(smp);
  free(fp);
  free(lp);
  free(sp);
  free(vals);
  free(loc_ids);
  ip_strtab_free(&st);
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
