/* util/text_table.c - aligned plain-text tables and readable units (see util/text_table.h). */
#include "util/text_table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/must_alloc.h"
#include "util/name_cut.h"

void ip_tt_init(ip_ttable *t, size_t ncols) {
  memset(t, 0, sizeof *t);
  t->ncols = ncols;
  t->name_col = SIZE_MAX;
}

void ip_tt_names(ip_ttable *t, size_t col, unsigned flags) {
  t->name_col = col;
  t->name_flags = flags;
}

static void add_cell(ip_ttable *t, const char *fmt, va_list ap) {
  char *cell = NULL;
  if (vasprintf(&cell, fmt, ap) < 0)
    cell = ip_must_strdup("?");
  ip_must_grow((void **)&t->cells, &t->cap, t->n + 1, sizeof *t->cells);
  t->cells[t->n++] = cell;
}

void ip_tt_add(ip_ttable *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_cell(t, fmt, ap);
  va_end(ap);
}

void ip_tt_add_level(ip_ttable *t, unsigned level, const char *fmt, ...) {
  size_t row = t->n / t->ncols;
  ip_must_grow((void **)&t->levels, &t->cap_levels, row + 1, sizeof *t->levels);
  t->levels[row] = level;
  va_list ap;
  va_start(ap, fmt);
  add_cell(t, fmt, ap);
  va_end(ap);
}

void ip_tt_add_tail(ip_ttable *t, const char *fmt, ...) {
  size_t row = t->n ? (t->n - 1) / t->ncols : 0;
  ip_must_grow((void **)&t->tails, &t->cap_tails, row + 1, sizeof *t->tails);
  free(t->tails[row]);
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&t->tails[row], fmt, ap) < 0)
    t->tails[row] = NULL;
  va_end(ap);
}

size_t ip_tt_rows(const ip_ttable *t) { return (t->n + t->ncols - 1) / t->ncols; }

static size_t name_column(const ip_ttable *t) {
  return t->name_col < t->ncols ? t->name_col : t->ncols - 1;
}

static unsigned level_of(const ip_ttable *t, size_t row) {
  return t->levels && row < t->cap_levels ? t->levels[row] : 0;
}

static const char *tail_of(const ip_ttable *t, size_t row) {
  return t->tails && row < t->cap_tails && t->tails[row] ? t->tails[row] : "";
}

static const char *cell_at(const ip_ttable *t, size_t row, size_t col) {
  size_t i = row * t->ncols + col;
  return i < t->n ? t->cells[i] : "";
}

char **ip_tt_cell(ip_ttable *t, size_t row, size_t col) {
  size_t i = row * t->ncols + col;
  return i < t->n ? &t->cells[i] : NULL;
}

size_t ip_tt_col_width(const ip_ttable *t, size_t col) {
  size_t w = 0, rows = ip_tt_rows(t), names = name_column(t);
  for (size_t r = 0; r < rows; r++) {
    size_t len = strlen(cell_at(t, r, col)) +
                 (col == names ? 2 * level_of(t, r) + strlen(tail_of(t, r)) : 0);
    if (len > w)
      w = len;
  }
  return w;
}

/* The indentation of a name cell: two blanks a level, or where that would
 * take more than half the room, the level's number ("[41] ") at half. */
static void indentation(unsigned level, size_t room, char *buf, size_t len) {
  size_t blanks = 2 * (size_t)level;
  if (!room || blanks <= room / 2) {
    snprintf(buf, len, "%*s", (int)blanks, "");
    return;
  }
  char mark[24];
  int m = snprintf(mark, sizeof mark, "[%u] ", level + 1);
  size_t pad = room / 2 > (size_t)m ? room / 2 - (size_t)m : 0;
  snprintf(buf, len, "%*s%s", (int)pad, "", mark);
}

void ip_tt_print_layout(const ip_ttable *t, FILE *out, const ip_tt_layout *l) {
  size_t rows = ip_tt_rows(t), names = name_column(t), n_cols = l->cols ? l->n_cols : t->ncols;
  size_t *cols = ip_must_calloc(n_cols + 1, sizeof *cols),
         *w = ip_must_calloc(n_cols + 1, sizeof *w);
  size_t used = (size_t)(l->indent > 0 ? l->indent : 0), name_at = SIZE_MAX;
  for (size_t k = 0; k < n_cols; k++) {
    cols[k] = l->cols ? l->cols[k] : k;
    if (cols[k] == names)
      name_at = k;
    else
      used += (w[k] = ip_tt_col_width(t, cols[k]));
    used += k ? 2 : 0;
  }
  /* the names: indented, then cut to the room the other columns leave */
  size_t room = 0;
  if (l->width)
    room = l->width > used + IP_TT_MIN_NAME ? l->width - used : IP_TT_MIN_NAME;
  char **prefix = ip_must_calloc(rows + 1, sizeof *prefix), **cut = NULL;
  if (name_at != SIZE_MAX) {
    const char **list = ip_must_calloc(rows + 1, sizeof *list);
    size_t *widths = ip_must_calloc(rows + 1, sizeof *widths);
    cut = ip_must_calloc(rows + 1, sizeof *cut);
    for (size_t r = 0; r < rows; r++) {
      char ind[64];
      indentation(level_of(t, r), room, ind, sizeof ind);
      prefix[r] = ip_must_strdup(ind);
      list[r] = cell_at(t, r, names);
      size_t pl = strlen(ind) + strlen(tail_of(t, r));
      widths[r] = !room || r == 0 ? 0 : room > pl + 4 ? room - pl : 4;
    }
    cut[0] = ip_must_strdup(list[0]); /* the title */
    if (rows > 1)
      ip_names_cut(list + 1, widths + 1, rows - 1, t->name_flags, cut + 1);
    for (size_t r = 0; r < rows; r++) {
      size_t len = strlen(prefix[r]) + strlen(cut[r]) + strlen(tail_of(t, r));
      if (len > w[name_at])
        w[name_at] = len;
    }
    if (!room && name_at + 1 < n_cols && w[name_at] > IP_TT_PIPE_PAD)
      w[name_at] = IP_TT_PIPE_PAD;
    free(list);
    free(widths);
  }
  for (size_t r = 0; r < rows; r++) {
    fprintf(out, "%*s", l->indent, "");
    for (size_t k = 0; k < n_cols; k++) {
      int last = k + 1 == n_cols;
      if (k == name_at) {
        int len = fprintf(out, "%s%s%s", prefix[r], cut[r], tail_of(t, r));
        if (!last && len >= 0 && (size_t)len < w[k])
          fprintf(out, "%*s", (int)(w[k] - (size_t)len), "");
      } else if (last)
        fputs(cell_at(t, r, cols[k]), out);
      else
        fprintf(out, "%*s", (int)w[k], cell_at(t, r, cols[k]));
      fputs(last ? "\n" : "  ", out);
    }
  }
  for (size_t r = 0; r < rows; r++) {
    free(prefix[r]);
    if (cut)
      free(cut[r]);
  }
  free(prefix);
  free(cut);
  free(cols);
  free(w);
}

void ip_tt_print_fit(const ip_ttable *t, FILE *out, int indent, size_t width) {
  ip_tt_layout l = {indent, width, NULL, 0};
  ip_tt_print_layout(t, out, &l);
}

void ip_tt_print(const ip_ttable *t, FILE *out, int indent) { ip_tt_print_fit(t, out, indent, 0); }

void ip_tt_free(ip_ttable *t) {
  for (size_t i = 0; i < t->n; i++)
    free(t->cells[i]);
  free(t->cells);
  free(t->levels);
  for (size_t r = 0; r < t->cap_tails; r++)
    free(t->tails[r]);
  free(t->tails);
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
