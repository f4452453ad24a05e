/* cli/top_rates.c - the rates `inclprof top` shows.  Each refresh keeps a
 * snapshot of every function's totals (calls, Elapsed and Application
 * Exclusive), by name, so that the trace can be read anew each time; the
 * rows are the newest snapshot less the oldest one kept (the oldest inside
 * the window, or the one before the newest when refreshes are further apart):
 * exact counts of what happened between the two reads, per second of wall
 * time between them.  Snapshots older than needed are dropped. */
#include "cli/top_rates.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

typedef struct top_entry {
  char *name;
  uint64_t calls, el_excl, app_excl;
} top_entry;

struct top_snapshot {
  uint64_t at_ns;
  top_entry *e; /* sorted by name */
  size_t n;
};

static int by_name(const void *a, const void *b) {
  return strcmp(((const top_entry *)a)->name, ((const top_entry *)b)->name);
}

static void snapshot_free(top_snapshot *t) {
  for (size_t i = 0; i < t->n; i++)
    free(t->e[i].name);
  free(t->e);
  free(t);
}

void top_history_add(top_history *h, const ip_session *s, uint64_t now_ns, uint64_t window_ns) {
  ip_row *rows;
  size_t n = ip_aggregate(s, IP_BY_FUNCTION, NULL, &rows);
  top_snapshot *t = ip_must_calloc(1, sizeof *t);
  t->at_ns = now_ns;
  t->e = ip_must_calloc(n ? n : 1, sizeof *t->e);
  for (size_t i = 0; i < n; i++) {
    char buf[512];
    const char *name = ip_row_name(s, IP_BY_FUNCTION, rows[i].key, buf, sizeof buf);
    t->e[t->n++] =
        (top_entry){ip_must_strdup(name), rows[i].v.calls, rows[i].v.el_excl, rows[i].v.app_excl};
  }
  free(rows);
  qsort(t->e, t->n, sizeof *t->e, by_name);
  /* one function can have rows in several modules: add them up */
  size_t k = 0;
  for (size_t i = 0; i < t->n; i++) {
    if (k && !strcmp(t->e[k - 1].name, t->e[i].name)) {
      t->e[k - 1].calls += t->e[i].calls;
      t->e[k - 1].el_excl += t->e[i].el_excl;
      t->e[k - 1].app_excl += t->e[i].app_excl;
      free(t->e[i].name);
    } else {
      t->e[k++] = t->e[i];
    }
  }
  t->n = k;
  h->v = ip_must_realloc(h->v, h->n + 1, sizeof *h->v);
  h->v[h->n++] = t;
  while (h->n > 2 && now_ns - h->v[0]->at_ns > window_ns) {
    snapshot_free(h->v[0]);
    memmove(h->v, h->v + 1, --h->n * sizeof *h->v);
  }
}

typedef struct top_row {
  const char *name;
  uint64_t calls, el_excl, app_excl;
} top_row;

static int by_el(const void *a, const void *b) {
  const top_row *x = a, *y = b;
  return x->el_excl != y->el_excl ? (x->el_excl < y->el_excl ? 1 : -1) : strcmp(x->name, y->name);
}
static int by_app(const void *a, const void *b) {
  const top_row *x = a, *y = b;
  return x->app_excl != y->app_excl ? (x->app_excl < y->app_excl ? 1 : -1)
                                    : strcmp(x->name, y->name);
}

static uint64_t less(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

void top_history_print(const top_history *h, FILE *out, int app, size_t max_rows, size_t width) {
  if (!h->n)
    return;
  const top_snapshot *now = h->v[h->n - 1], *base = h->n > 1 ? h->v[0] : NULL;
  top_row *rows = ip_must_calloc(now->n ? now->n : 1, sizeof *rows);
  size_t n = 0;
  uint64_t total_el = 0;
  for (size_t i = 0; i < now->n; i++) {
    const top_entry *e = &now->e[i], *b = NULL;
    if (base)
      b = bsearch(e, base->e, base->n, sizeof *base->e, by_name);
    top_row r = {e->name, less(e->calls, b ? b->calls : 0), less(e->el_excl, b ? b->el_excl : 0),
                 less(e->app_excl, b ? b->app_excl : 0)};
    total_el += r.el_excl;
    if (r.calls || r.el_excl)
      rows[n++] = r;
  }
  qsort(rows, n, sizeof *rows, app ? by_app : by_el);
  double secs = base ? (double)(now->at_ns - base->at_ns) / 1e9 : 0;
  char span[32];
  ip_fmt_ns(span, sizeof span, base ? now->at_ns - base->at_ns : 0);
  fprintf(out, "%s, sorted by %s Exclusive\n\n",
          base ? span : "since the trace began (rates from the next refresh)",
          app ? "Application" : "Elapsed");
  fprintf(out, "%10s %10s %12s %7s %12s  %s\n", "Calls/s", "Calls", "El Excl", "El %", "App Excl",
          "Function");
  for (size_t i = 0; i < n && i < max_rows; i++) {
    char el[32], ap[32], rate[32] = "-";
    ip_fmt_ns(el, sizeof el, rows[i].el_excl);
    ip_fmt_ns(ap, sizeof ap, rows[i].app_excl);
    if (secs > 0)
      snprintf(rate, sizeof rate, "%.0f", (double)rows[i].calls / secs);
    fprintf(out, "%10s %10llu %12s %6.2f%% %12s  %.*s\n", rate, (unsigned long long)rows[i].calls,
            el, ip_pct(rows[i].el_excl, total_el), ap, width > 60 ? (int)(width - 60) : 1000,
            rows[i].name);
  }
  free(rows);
}

void top_history_free(top_history *h) {
  for (size_t i = 0; i < h->n; i++)
    snapshot_free(h->v[i]);
  free(h->v);
  h->v = NULL;
  h->n = 0;
}
