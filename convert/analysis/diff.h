/* analysis/diff.h - two builds compared (`inclprof diff`): each side is one or
 * more runs (a trace directory or file each); rows are matched across runs by
 * name (function: demangled name and source file; module: file name; thread:
 * its name, else its rank in its process; process: executable and rank), and
 * per row every data value's median per side, the change of the compared
 * value's Exclusive and Inclusive time (Elapsed, or Application: without the
 * intervals in which the kernel worked for the thread, such as waiting for a
 * CPU), its share of the session, and a noise test on the per-run Exclusive
 * values: the smaller p of Welch's t-test on their logarithms
 * (analysis/noise_test.h) and the Mann-Whitney rank test (analysis/ranktest.h).
 * Per function, also the 99th percentile of its calls' Inclusive time
 * (compared value) over all the runs of a side together (model/latency.h).
 * The two sides may be
 * programs of different file names (two builds): their rows are matched by
 * name all the same, unless they share too few to be one program. */
#ifndef INCLPROF_DIFF_H
#define INCLPROF_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

enum { IP_DIFF_BASE, IP_DIFF_NEW };

typedef struct ip_diff_row {
  char *name, *file;              /* display name; source file (functions), else "" */
  ip_values med[2];               /* median per side of each value (min/max unused) */
  double *excl[2];                /* per-run Exclusive (compared value), one per run */
  int present[2];                 /* ran in at least one run of the side */
  int64_t delta_excl, delta_incl; /* NEW - BASE medians, ns */
  double delta_pct;               /* delta_excl, % of BASE's median session Elapsed Inclusive */
  double p;                       /* noise test p-value (1 with fewer than 3 runs a side) */
  int marked;                     /* beyond noise: p < IP_DIFF_ALPHA and |delta_pct| >= threshold */
  uint64_t p99[2];                /* functions: p99 of the side's calls (0: none ended) */
} ip_diff_row;

#define IP_DIFF_ALPHA    0.01
#define IP_DIFF_MIN_RUNS 3

typedef struct ip_diff {
  ip_level by;
  int application; /* compare Application instead of Elapsed time */
  size_t runs[2];
  uint64_t session_med[2];  /* median session Inclusive (compared value) per side */
  char *program[2];         /* executable of each side's first run */
  size_t shared, base_rows; /* rows present on both sides; rows present in BASE */
  size_t n_damaged;         /* trace files read only up to damage (warned on stderr) */
  ip_diff_row *rows;        /* largest |delta_excl| first */
  size_t n, cap;
} ip_diff;

/* Loads every run (paths[side][i]) and fills d.  Returns 0, or -1 after
 * printing a one-line error (unreadable run, a run without instrumented time,
 * runs of different programs on one side, or sides whose programs differ in
 * name and share fewer than half of BASE's rows, unless force). */
int ip_diff_build(ip_diff *d, ip_level by, int application, char *const *paths[2],
                  const size_t n[2], double threshold_pct, int force);
/* The compared value's Exclusive / Inclusive time of v. */
uint64_t ip_diff_excl(const ip_diff *d, const ip_values *v);
uint64_t ip_diff_incl(const ip_diff *d, const ip_values *v);
void ip_diff_free(ip_diff *d);

#endif
