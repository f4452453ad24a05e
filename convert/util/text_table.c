/* util/text_table.c - aligned plain-text tables and readable units (see util/text_table.h). */
#include "util/text_table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/must_alloc.h"

void ip_tt_init(ip_ttable *t, size_t ncols) {
  memset(t, 0, sizeof *t);
  t->ncols = ncols;
}

void ip_tt_add(ip_ttable *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *cell = NULL;
  if (vasprintf(&cell, fmt, ap) < 0)
    cell = ip_must_strdup("?");
  va_end(ap);
  ip_must_grow((void **)&t->cells, &t->cap, t->n + 1, sizeof *t->cells);
  t->cells[t->n++] = cell;
}

void ip_tt_print_fit(const ip_ttable *t, FILE *out, int indent, size_t width) {
  size_t *w = ip_must_calloc(t->ncols, sizeof *w);
  for (size_t i = 0; i < t->n; i++) {
    size_t len = strlen(t->cells[i]);
    if (len > w[i % t->ncols])
      w[i % t->ncols] = len;
  }
  size_t used = (size_t)indent, last = 0;
  for (size_t c = 0; c + 1 < t->ncols; c++)
    used += w[c] + 2;
  if (width)
    last = width > used + 24 ? width - used : 24;
  for (size_t i = 0; i < t->n; i++) {
    size_t c = i % t->ncols;
    if (c == 0)
      fprintf(out, "%*s", indent, "");
    if (c + 1 == t->ncols || i + 1 == t->n) {
      const char *cell = t->cells[i];
      if (last && strlen(cell) > last)
        fprintf(out, "%.*s...\n", (int)(last - 3), cell);
      else
        fprintf(out, "%s\n", cell);
    } else {
      fprintf(out, "%*s  ", (int)w[c], t->cells[i]);
    }
  }
  free(w);
}

void ip_tt_print(const ip_ttable *t, FILE *out, int indent) { ip_tt_print_fit(t, out, indent, 0); }

void ip_tt_free(ip_ttable *t) {
  for (size_t i = 0; i < t->n; i++)
    free(t->cells[i]);
  free(t->cells);
  memset(t, 0, sizeof *t);
}

void ip_fmt_ns(char *buf, size_t n, uint64_t ns) {
  if (ns < 1000)
    snprintf(buf, n, "%llu ns", (unsigned long long)ns);
  else if (ns < 1000000)
    snprintf(buf, n, "%.2f us", (double)ns / 1e3);
  else if (ns < 1000000000)
    snprintf(buf, n, "%.2f ms", (double)ns / 1e6);
  else
    snprintf(buf, n, "%.3f s", (double)ns / 1e9);
}

void ip_fmt_bytes(char *buf, size_t n, uint64_t b) {
  if (b < 1024)
    snprintf(buf, n, "%llu B", (unsigned long long)b);
  else if (b < (1ull << 20))
    snprintf(buf, n, "%.1f KB", (double)b / 1024);
  else if (b < (1ull << 30))
    snprintf(buf, n, "%.1f MB", (double)b / (1 << 20));
  else
    snprintf(buf, n, "%.2f GB", (double)b / (1 << 30));
}

void ip_fmt_pct(char *buf, size_t n, double pct) { snprintf(buf, n, "%.2f%%", pct); }
