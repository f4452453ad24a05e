/* export/sample_lines.h - what the exports that carry source lines (pprof,
 * callgrind, html) share: each sampled instruction address of a process
 * located once (source file, line and inline chain, analysis/source_lines.h),
 * and a value shared out over call lines. */
#ifndef INCLPROF_EXPORT_SAMPLE_LINES_H
#define INCLPROF_EXPORT_SAMPLE_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "model/model.h"
#include "util/util.h"

typedef struct ip_sample_lines {
  ip_symbolizer *z;
  ip_u64map *by_pc; /* per process: address -> index into locs */
  size_t n_processes;
  ip_src_loc *locs; /* the addresses located so far */
  size_t n_locs, cap_locs;
} ip_sample_lines;

void ip_sample_lines_init(ip_sample_lines *sl, const ip_session *s);
void ip_sample_lines_free(ip_sample_lines *sl);

/* The index in sl->locs of address pc of process `process`, located on its
 * first use. */
size_t ip_sample_lines_at(ip_sample_lines *sl, const ip_session *s, uint32_t process, uint64_t pc);

/* An ip_locator (analysis/line_rows.h) reading through sl, its ctx. */
void ip_sample_lines_locate(void *sl, const ip_session *s, uint32_t process, uint64_t pc,
                            ip_src_loc *out);

/* Whether where's outermost function is session function f: the sample's
 * code is f's own (or inlined into f), not a callee's without probes. */
int ip_sample_in_func(const ip_src_loc *where, const ip_func *f);

/* The share of value v that falls to a part of weight w after parts of
 * weight `before`, of all parts' weight `all` (> 0): the shares of parts
 * that cover `all` sum to exactly v. */
uint64_t ip_share(uint64_t v, uint64_t before, uint64_t w, uint64_t all);

#endif
