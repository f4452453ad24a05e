/* analysis/noise_test.h - whether two builds' per-run times differ beyond
 * run-to-run noise: Welch's t-test on the logarithms of the times (a change
 * is a ratio; the spread of each side is its own), which with as few as
 * 3 + 3 runs can give a p as small as the runs' agreement allows. */
#ifndef INCLPROF_NOISE_TEST_H
#define INCLPROF_NOISE_TEST_H

#include <stddef.h>

/* Two-sided p-value of "x and y have the same mean logarithm".  1 when a
 * side has fewer than two values or both sides are constant and equal; 0
 * when both are constant and differ. */
double ip_noise_p(const double *x, size_t nx, const double *y, size_t ny);

/* Student's t distribution: P(|T| >= t) for df degrees of freedom (df > 0). */
double ip_t_two_sided(double t, double df);

/* The |t| whose two-sided p is alpha, for df degrees of freedom: how many
 * standard errors a change must reach to be marked. */
double ip_t_critical(double alpha, double df);

#endif
