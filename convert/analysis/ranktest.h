/* analysis/ranktest.h - the Mann-Whitney U rank test on two small samples
 * (per-run values of two builds): exact distribution up to 40 values a side,
 * the normal approximation beyond. */
#ifndef INCLPROF_RANKTEST_H
#define INCLPROF_RANKTEST_H

#include <stddef.h>

/* Two-sided p-value of "x and y come from the same distribution".  Ties count
 * half; the exact p is then taken at the U nearer the centre (conservative).
 * 1 when either side is empty. */
double ip_mann_whitney_p(const double *x, size_t nx, const double *y, size_t ny);

#endif
