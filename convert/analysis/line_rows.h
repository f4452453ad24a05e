/* analysis/line_rows.h - the samples of a session by source line or by
 * instruction, per function: what report --by line / --by address lists
 * (views/view_lines.c) and the exports' line costs read. */
#ifndef INCLPROF_LINE_ROWS_H
#define INCLPROF_LINE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "analysis/source_lines.h"

/* Locates pc of process `process` (ip_source_locate, or a test's stand-in). */
typedef void (*ip_locator)(void *ctx, const ip_session *s, uint32_t process, uint64_t pc,
                           ip_src_loc *out);

/* One row: the Exclusive samples of function `func` at one source line (its
 * file, line and innermost inlined function: where.frame[0]) or at one
 * instruction (where.module, where.offset). */
typedef struct ip_line_row {
  uint32_t func;     /* index into ip_session.funcs: the function on top of the stack */
  ip_src_loc where;  /* by line: frame[0] is the line; by address: the instruction */
  uint64_t samples;  /* Exclusive samples there */
  uint64_t fn_total; /* the function's Exclusive samples with a known address */
} ip_line_row;

typedef struct ip_line_rows {
  ip_line_row *v; /* most samples first */
  size_t n;
  uint64_t total; /* samples with a known address in the selection */
} ip_line_rows;

/* The rows of the selected threads, of the function named fn (pretty or
 * assembler name; NULL: every function); by_address: one per instruction,
 * else one per source line. */
void ip_line_rows_build(const ip_session *s, const ip_selection *sel, const char *fn,
                        int by_address, ip_locator loc, void *loc_ctx, ip_line_rows *out);
void ip_line_rows_free(ip_line_rows *r);

/* The same rows gathered thread by thread (a load's file_done can add each
 * file's threads before their trees are freed): the samples at known
 * addresses by (process, address, function), as few as the distinct ones. */
typedef struct ip_line_hits {
  struct ip_line_hit *v;
  size_t n, cap, merged; /* v[0..merged) distinct and sorted */
} ip_line_hits;
/* Adds thread th's samples (of the function named fn; NULL: every one). */
void ip_line_hits_add(ip_line_hits *h, const ip_session *s, const ip_thread *th, const char *fn);
/* ip_line_rows_build's rows from the threads added; frees h. */
void ip_line_rows_from_hits(const ip_session *s, ip_line_hits *h, int by_address, ip_locator loc,
                            void *loc_ctx, ip_line_rows *out);

#endif
