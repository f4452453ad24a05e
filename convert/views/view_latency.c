/* views/view_latency.c - `inclprof report --latency`: per function, the
 * distribution of its calls' Elapsed (or, with --value application,
 * Application) Inclusive time: Calls, Min, p50, p90, p99, p99.9, Max and a
 * text histogram of the calls between Min and Max on a log scale; with
 * --tree the same per call path (ip_view_latency_cells). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "views/views.h"

/* The histogram's cells and its symbols, by count relative to the fullest
 * cell ('_' empty, '@' the fullest; any call shows at least '.'). */
#define SPARK_CELLS 16
static const char spark_levels[] = ".:-=+*#@";

static void time_cell(ip_ttable *t, uint64_t ns) {
  char b[32];
  ip_fmt_ns(b, sizeof b, ns);
  ip_tt_add(t, "%s", b);
}

/* SPARK_CELLS cells from lo to hi, each 1/SPARK_CELLS of the ratio hi/lo
 * (the first cell takes everything below, the last everything above). */
static void spark(char *out, const ip_lat *h, uint64_t lo, uint64_t hi) {
  uint64_t n[SPARK_CELLS], most = 0;
  double base = lo ? (double)lo : 1, ratio = hi > base ? (double)hi / base : 1;
  for (int i = 0; i < SPARK_CELLS; i++) {
    uint64_t a = i ? (uint64_t)(base * pow(ratio, (double)i / SPARK_CELLS)) : 0;
    uint64_t b = i < SPARK_CELLS - 1 ? (uint64_t)(base * pow(ratio, (double)(i + 1) / SPARK_CELLS))
                                     : UINT64_MAX;
    n[i] = ip_lat_count_between(h, a, b);
    if (n[i] > most)
      most = n[i];
  }
  for (int i = 0; i < SPARK_CELLS; i++) {
    size_t lvl = most ? (n[i] * (sizeof spark_levels - 1) + most - 1) / most : 0;
    out[i] = n[i] ? spark_levels[lvl - 1] : '_';
  }
  out[SPARK_CELLS] = '\0';
}

static const ip_lat *chosen(const ip_lat_pair *p, const ip_view_opts *o) {
  return o->app_value ? &p->app : &p->el;
}

void ip_view_latency_titles(ip_ttable *t) {
  static const char *const titles[] = {"Calls", "p50", "p90", "p99", "p99.9", "Max"};
  for (size_t i = 0; i < sizeof titles / sizeof *titles; i++)
    ip_tt_add(t, "%s", titles[i]);
}

void ip_view_latency_cells(ip_ttable *t, const ip_lat *h) {
  ip_tt_add(t, "%llu", (unsigned long long)h->n);
  time_cell(t, ip_lat_quantile(h, 0.50));
  time_cell(t, ip_lat_quantile(h, 0.90));
  time_cell(t, ip_lat_quantile(h, 0.99));
  time_cell(t, ip_lat_quantile(h, 0.999));
  time_cell(t, h->max);
}

void ip_view_latency(FILE *out, const ip_session *s, const ip_view_opts *o) {
  ip_lat_pair *by = ip_lat_by_function(s, &o->sel);
  ip_row *rows;
  size_t n = ip_aggregate(s, IP_BY_FUNCTION, &o->sel, &rows);
  ip_rows_sort(s, IP_BY_FUNCTION, rows, n, o->sort);
  fprintf(out,
          "latency: each call's %s Inclusive time (quantiles within 0.8 %%, Min and Max exact); "
          "histogram: calls from Min to Max, log scale\n\n",
          o->app_value ? "Application" : "Elapsed");
  ip_ttable t;
  ip_tt_init(&t, 9);
  ip_tt_add(&t, "Calls");
  ip_tt_add(&t, "Min");
  for (const char *q = "p50\0p90\0p99\0p99.9\0Max\0"; *q; q += strlen(q) + 1)
    ip_tt_add(&t, "%s", q);
  ip_tt_add(&t, "Min..Max");
  ip_tt_add(&t, "Function");
  size_t shown = 0;
  for (size_t i = 0; i < n && (!o->top || shown < o->top); i++) {
    const ip_lat *h = by ? chosen(&by[rows[i].key], o) : NULL;
    if (!h || !h->n)
      continue; /* no call ended here: nothing to rank */
    uint64_t lo = h->min;
    ip_tt_add(&t, "%llu", (unsigned long long)h->n);
    time_cell(&t, lo);
    time_cell(&t, ip_lat_quantile(h, 0.50));
    time_cell(&t, ip_lat_quantile(h, 0.90));
    time_cell(&t, ip_lat_quantile(h, 0.99));
    time_cell(&t, ip_lat_quantile(h, 0.999));
    time_cell(&t, h->max);
    char sp[SPARK_CELLS + 1];
    spark(sp, h, lo, h->max);
    ip_tt_add(&t, "%s", sp);
    char buf[512];
    ip_tt_add(&t, "%s", ip_row_name(s, IP_BY_FUNCTION, rows[i].key, buf, sizeof buf));
    shown++;
  }
  ip_tt_print_fit(&t, out, 0, o->width);
  ip_tt_free(&t);
  free(rows);
  ip_lat_free_all(by, s->n_funcs);
}
