/* util/text_table.h - aligned plain-text tables for the report and info views:
 * cells are collected row by row, then printed with every column padded to
 * its widest cell (numbers right-aligned, the last column left-aligned and
 * never padded).  One column holds names (the last unless told): fitted to a
 * width, its cells are cut so that the line fits and two different names
 * never read the same (util/name_cut.h); a name cell can be indented by
 * levels (a call tree), and a level too deep for the width is written as a
 * number.  Printed without a width, a name column that is not the last is
 * padded to at most IP_TT_PIPE_PAD characters. */
#ifndef INCLPROF_TEXT_TABLE_H
#define INCLPROF_TEXT_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IP_TT_PIPE_PAD 40
/* Fitted to a width, a name gets at least this many characters (the line
 * is longer when the other columns leave less). */
#define IP_TT_MIN_NAME 16

typedef struct ip_ttable {
  size_t ncols;
  char **cells;        /* row-major */
  size_t n, cap;       /* cells used / allocated */
  size_t name_col;     /* the column of names (SIZE_MAX: the last) */
  unsigned name_flags; /* IP_CUT_* for its cells */
  unsigned *levels;    /* per row: the name cell's indentation level */
  size_t cap_levels;
  char **tails; /* per row: text after the name, never cut, or NULL */
  size_t cap_tails;
} ip_ttable;

/* Which columns to print and how wide the lines may be. */
typedef struct ip_tt_layout {
  int indent;   /* spaces before every line */
  size_t width; /* the width lines fit by cutting names (0: whole names) */
  const size_t
      *cols; /* the columns printed, in this order (NULL: all); the name column among them */
  size_t n_cols;
} ip_tt_layout;

void ip_tt_init(ip_ttable *t, size_t ncols);
/* Column col holds names, cut as IP_CUT_* flags say (default: the last
 * column, function names). */
void ip_tt_names(ip_ttable *t, size_t col, unsigned flags);
/* Appends the next cell (rows fill left to right, top to bottom). */
void ip_tt_add(ip_ttable *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends the next cell, a name indented by level (two blanks a level). */
void ip_tt_add_level(ip_ttable *t, unsigned level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Gives the name of the last row begun a tail kept whole after it (a mark
 * such as " [note 1]"): a name fitted to a width is cut to leave it room. */
void ip_tt_add_tail(ip_ttable *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints every row, each line prefixed by indent spaces. */
void ip_tt_print(const ip_ttable *t, FILE *out, int indent);
/* The same, with the names cut so that lines fit width (0 cuts nothing). */
void ip_tt_print_fit(const ip_ttable *t, FILE *out, int indent, size_t width);
/* The same, with the columns and width of l. */
void ip_tt_print_layout(const ip_ttable *t, FILE *out, const ip_tt_layout *l);
/* The widest cell of column col, and the widest name cell with its
 * indentation. */
size_t ip_tt_col_width(const ip_ttable *t, size_t col);
size_t ip_tt_rows(const ip_ttable *t);
/* The cell of column col in row r (row 0: the titles), to replace. */
char **ip_tt_cell(ip_ttable *t, size_t r, size_t col);
void ip_tt_free(ip_ttable *t);

/* Readable durations: "850 ns", "12.34 us", "5.60 ms", "1.234 s". */
void ip_fmt_ns(char *buf, size_t n, uint64_t ns);
/* Readable sizes: "512 B", "12.3 KB", "45.6 MB", "7.89 GB" (binary units). */
void ip_fmt_bytes(char *buf, size_t n, uint64_t bytes);
/* "12.34%" */
void ip_fmt_pct(char *buf, size_t n, double pct);

#endif
