/* views/view_table.c - the report's flat table: one row per function, module,
 * thread or process with every data value, its percentage, call counts and
 * (for functions) per-call min/avg/max Elapsed Inclusive; a function GCC also
 * inlined at some call sites is marked, and a note under the table says
 * where those calls went. */
#include <stdlib.h>

#include "util/util.h"
#include "views/views.h"

static const char *const key_titles[] = {"Function", "Module", "Thread (pid/tid)", "Process"};

/* El: Elapsed, App: Application, Smp: samples; a % column is the share of
 * the session's Inclusive total of its kind (the header says so). */
void ip_view_value_titles(ip_ttable *t, int samples) {
  static const char *const titles[] = {"Calls",    "El Incl",   "El Incl%", "El Excl",  "El Excl%",
                                       "App Incl", "App Incl%", "App Excl", "App Excl%"};
  static const char *const sample_titles[] = {"Smp Incl", "Smp Incl%", "Smp Excl", "Smp Excl%"};
  for (size_t i = 0; i < sizeof titles / sizeof *titles; i++)
    ip_tt_add(t, "%s", titles[i]);
  for (size_t i = 0; samples && i < sizeof sample_titles / sizeof *sample_titles; i++)
    ip_tt_add(t, "%s", sample_titles[i]);
}

static void time_cell(ip_ttable *t, uint64_t ns) {
  char b[32];
  ip_fmt_ns(b, sizeof b, ns);
  ip_tt_add(t, "%s", b);
}

static void pct_cell(ip_ttable *t, uint64_t v, uint64_t total) {
  char b[32];
  ip_fmt_pct(b, sizeof b, ip_pct(v, total));
  ip_tt_add(t, "%s", b);
}

void ip_view_value_cells(ip_ttable *t, const ip_session *s, const ip_values *v, int samples) {
  ip_tt_add(t, "%llu", (unsigned long long)v->calls);
  time_cell(t, v->el_incl);
  pct_cell(t, v->el_incl, s->total.el_incl);
  time_cell(t, v->el_excl);
  pct_cell(t, v->el_excl, s->total.el_incl);
  time_cell(t, v->app_incl);
  pct_cell(t, v->app_incl, s->total.app_incl);
  time_cell(t, v->app_excl);
  pct_cell(t, v->app_excl, s->total.app_incl);
  if (samples) {
    ip_tt_add(t, "%llu", (unsigned long long)v->smp_incl);
    pct_cell(t, v->smp_incl, s->total.smp_incl);
    ip_tt_add(t, "%llu", (unsigned long long)v->smp_excl);
    pct_cell(t, v->smp_excl, s->total.smp_incl);
  }
}

/* Was the function of row KEY also inlined (its row misses those calls)? */
static const ip_skipped_fn *partly_inlined(const ip_session *s, const ip_view_opts *o,
                                           uint32_t key) {
  return ip_skipped_partly(o->skipped, s->funcs[key].pretty, s->funcs[key].file);
}

void ip_view_table(FILE *out, const ip_session *s, const ip_view_opts *o) {
  ip_row *rows;
  size_t n = ip_aggregate(s, o->by, &o->sel, &rows);
  ip_rows_sort(s, o->by, rows, n, o->sort);
  if (o->top && o->top < n)
    n = o->top;
  int per_call = o->per_call && o->by == IP_BY_FUNCTION;
  int lifetimes = o->by == IP_BY_THREAD;
  ip_ttable t;
  ip_tt_init(&t, 10 + (o->samples ? 4 : 0) + (per_call ? 3 : 0) + (lifetimes ? 3 : 0));
  ip_view_value_titles(&t, o->samples);
  if (per_call) {
    ip_tt_add(&t, "Avg Incl");
    ip_tt_add(&t, "Min Incl");
    ip_tt_add(&t, "Max Incl");
  }
  if (lifetimes) {
    ip_tt_add(&t, "Wall");
    ip_tt_add(&t, "El/Wall");
    ip_tt_add(&t, "App/Wall");
  }
  ip_tt_add(&t, "%s", key_titles[o->by]);
  size_t partly = 0;
  for (size_t i = 0; i < n; i++) {
    const ip_values *v = &rows[i].v;
    ip_view_value_cells(&t, s, v, o->samples);
    if (per_call) {
      time_cell(&t, v->calls ? v->el_incl / v->calls : 0);
      time_cell(&t, v->min_call);
      time_cell(&t, v->max_call);
    }
    if (lifetimes) { /* the thread's values as shares of its own lifetime */
      const ip_thread *th = &s->threads[rows[i].key];
      uint64_t wall = th->end_ns > th->start_ns ? th->end_ns - th->start_ns : 0;
      time_cell(&t, wall);
      pct_cell(&t, v->el_incl, wall);
      pct_cell(&t, v->app_incl, wall);
    }
    char buf[512];
    const char *name = ip_row_name(s, o->by, rows[i].key, buf, sizeof buf);
    if (o->by == IP_BY_THREAD && s->threads[rows[i].key].no_transitions)
      ip_tt_add(&t, "%s [no transition counter]", name);
    else if (o->by == IP_BY_FUNCTION && partly_inlined(s, o, rows[i].key))
      ip_tt_add(&t, "%s [also inlined: note %zu]", name, ++partly);
    else
      ip_tt_add(&t, "%s", name);
  }
  ip_tt_print_fit(&t, out, 0, o->width);
  ip_tt_free(&t);
  partly = 0;
  for (size_t i = 0; i < n && o->by == IP_BY_FUNCTION; i++) {
    const ip_skipped_fn *f = partly_inlined(s, o, rows[i].key);
    if (f) {
      partly++;
      fprintf(out,
              "%s%zu. %s: also inlined into %s: those calls are counted there, not in its row\n",
              partly == 1 ? "\nnotes:\n" : "", partly, f->pretty, f->detail);
    }
  }
  free(rows);
}
