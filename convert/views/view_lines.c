/* views/view_lines.c - report --by line / --by address: where inside its
 * function each Exclusive sample landed, per source line (inlined code at
 * the line it was written on, named with the inlined function) or per
 * instruction, with its share of the function's and of all samples. */
#include <string.h>

#include "analysis/analysis.h"
#include "model/model.h"
#include "util/util.h"
#include "views/views.h"

static void locate(void *z, const ip_session *s, uint32_t process, uint64_t pc, ip_src_loc *out) {
  ip_source_locate(z, s, process, pc, out);
}

static const char *base_name(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

/* "file:line", and " (inlined NAME)" when the code is an inlined function's. */
static void line_cell(ip_ttable *t, const ip_src_loc *w) {
  const ip_src_frame *f = &w->frame[0];
  if (!w->n_frames || !f->file[0])
    ip_tt_add(t, "[no line information]");
  else if (w->n_frames > 1)
    ip_tt_add(t, "%s:%u (inlined %s)", f->file, f->line, f->func);
  else
    ip_tt_add(t, "%s:%u", f->file, f->line);
}

int ip_view_lines(FILE *out, const ip_session *s, const ip_view_opts *o, const char *fn,
                  int by_address) {
  ip_symbolizer *z = ip_symbolizer_new();
  ip_line_rows r;
  ip_line_rows_build(s, &o->sel, fn, by_address, locate, z, &r);
  if (!r.n) {
    ip_line_rows_free(&r);
    ip_symbolizer_free(z);
    return -1;
  }
  fprintf(out, "\n%s: Exclusive samples by %s%s%s, %llu samples with a known address\n\n",
          by_address ? "instructions" : "lines", by_address ? "instruction" : "source line",
          fn ? " in " : "", fn ? fn : "", (unsigned long long)r.total);
  ip_ttable t;
  ip_tt_init(&t, by_address ? 7 : 5);
  ip_tt_names(&t, 3, 0);
  ip_tt_add(&t, "Samples");
  ip_tt_add(&t, "%% of fn");
  ip_tt_add(&t, "%% of all");
  ip_tt_add(&t, "Function");
  if (by_address) {
    ip_tt_add(&t, "Address");
    ip_tt_add(&t, "Instruction");
  }
  ip_tt_add(&t, "Line");
  size_t n = o->top && o->top < r.n ? o->top : r.n;
  for (size_t i = 0; i < n; i++) {
    const ip_line_row *row = &r.v[i];
    char pct[32];
    ip_tt_add(&t, "%llu", (unsigned long long)row->samples);
    ip_fmt_pct(pct, sizeof pct, ip_pct(row->samples, row->fn_total));
    ip_tt_add(&t, "%s", pct);
    ip_fmt_pct(pct, sizeof pct, ip_pct(row->samples, r.total));
    ip_tt_add(&t, "%s", pct);
    ip_tt_add(&t, "%s", s->funcs[row->func].pretty);
    if (by_address) {
      if (row->where.module == UINT32_MAX)
        ip_tt_add(&t, "[outside the recorded modules]");
      else
        ip_tt_add(&t, "%s+0x%llx", base_name(s->modules[row->where.module].path),
                  (unsigned long long)row->where.offset);
      ip_tt_add(&t, "%s", row->where.insn[0] ? row->where.insn : "?");
    }
    line_cell(&t, &row->where);
  }
  ip_tt_print_fit(&t, out, 0, o->width);
  ip_tt_free(&t);
  ip_line_rows_free(&r);
  ip_symbolizer_free(z);
  return 0;
}
