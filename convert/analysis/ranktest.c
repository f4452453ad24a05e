/* analysis/ranktest.c - Mann-Whitney U: U counts the pairs (x_i, y_j) with
 * x_i < y_j (ties count half); under the null hypothesis every ordering of
 * the nx + ny values is equally likely, which gives U's exact distribution by
 * the recurrence N(m, n, u) = N(m - 1, n, u - n) + N(m, n - 1, u). */
#include "analysis/ranktest.h"

#include <math.h>
#include <stdlib.h>

#include "util/util.h"

enum { EXACT_MAX = 40 };

/* P(U <= u) for sizes m, n, exactly. */
static double exact_cdf(size_t m, size_t n, long u) {
  if (u < 0)
    return 0;
  size_t umax = m * n;
  /* counts[i][j][v] built row by row over i, keeping j and v. */
  double *prev = ip_must_calloc((n + 1) * (umax + 1), sizeof *prev);
  double *cur = ip_must_calloc((n + 1) * (umax + 1), sizeof *cur);
  for (size_t j = 0; j <= n; j++)
    prev[j * (umax + 1)] = 1; /* m = 0: U = 0 in one way */
  for (size_t i = 1; i <= m; i++) {
    for (size_t j = 0; j <= n; j++)
      for (size_t v = 0; v <= umax; v++) {
        double c = v >= j ? prev[j * (umax + 1) + v - j] : 0;
        if (j > 0)
          c += cur[(j - 1) * (umax + 1) + v];
        cur[j * (umax + 1) + v] = c;
      }
    double *t = prev;
    prev = cur;
    cur = t;
  }
  double total = 0, below = 0;
  for (size_t v = 0; v <= umax; v++) {
    total += prev[n * (umax + 1) + v];
    if ((long)v <= u)
      below += prev[n * (umax + 1) + v];
  }
  free(prev);
  free(cur);
  return below / total;
}

double ip_mann_whitney_p(const double *x, size_t nx, const double *y, size_t ny) {
  if (!nx || !ny)
    return 1;
  double u = 0;
  for (size_t i = 0; i < nx; i++)
    for (size_t j = 0; j < ny; j++)
      u += x[i] < y[j] ? 1 : x[i] == y[j] ? 0.5 : 0;
  double centre = (double)(nx * ny) / 2;
  double lo = u <= centre ? u : (double)(nx * ny) - u; /* the smaller tail, by symmetry */
  double p;
  if (nx <= EXACT_MAX && ny <= EXACT_MAX) {
    p = 2 * exact_cdf(nx, ny, (long)ceil(lo));
  } else {
    double sd = sqrt((double)(nx * ny) * (double)(nx + ny + 1) / 12);
    p = sd > 0 ? erfc((centre - lo - 0.5) / sd / sqrt(2)) : 1;
  }
  return p > 1 ? 1 : p;
}
