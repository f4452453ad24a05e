/* util/text_table.h - aligned plain-text tables for the report and info views:
 * cells are collected row by row, then printed with every column padded to
 * its widest cell (numbers right-aligned, the last column left-aligned). */
#ifndef INCLPROF_TEXT_TABLE_H
#define INCLPROF_TEXT_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct ip_ttable {
  size_t ncols;
  char **cells;  /* row-major */
  size_t n, cap; /* cells used / allocated */
} ip_ttable;

void ip_tt_init(ip_ttable *t, size_t ncols);
/* Appends the next cell (rows fill left to right, top to bottom). */
void ip_tt_add(ip_ttable *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints every row, each line prefixed by indent spaces. */
void ip_tt_print(const ip_ttable *t, FILE *out, int indent);
/* The same, with the last column's cells cut to what is left of width
 * (ending in "..."; never below 24 characters); width 0 cuts nothing. */
void ip_tt_print_fit(const ip_ttable *t, FILE *out, int indent, size_t width);
void ip_tt_free(ip_ttable *t);

/* Readable durations: "850 ns", "12.34 us", "5.60 ms", "1.234 s". */
void ip_fmt_ns(char *buf, size_t n, uint64_t ns);
/* Readable sizes: "512 B", "12.3 KB", "45.6 MB", "7.89 GB" (binary units). */
void ip_fmt_bytes(char *buf, size_t n, uint64_t bytes);
/* "12.34%" */
void ip_fmt_pct(char *buf, size_t n, double pct);

#endif
