/* analysis/noise_test.c - Welch's t-test on log times, with Student's t
 * distribution from the regularized incomplete beta function (evaluated by
 * its continued fraction, modified Lentz's method). */
#include "analysis/noise_test.h"

#include <math.h>

/* The continued fraction of I_x(a, b), for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x) {
  const double tiny = 1e-300, eps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (fabs(d) < tiny ? tiny : d);
  double h = d;
  for (int m = 1; m <= 300; m++) {
    double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    for (int half = 0; half < 2; half++) {
      d = 1 + num * d;
      d = 1 / (fabs(d) < tiny ? tiny : d);
      c = 1 + num / c;
      c = fabs(c) < tiny ? tiny : c;
      h *= d * c;
      num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    }
    if (fabs(d * c - 1) < eps)
      break;
  }
  return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double incomplete_beta(double a, double b, double x) {
  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
  if (x < (a + 1) / (a + b + 2))
    return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double ip_t_two_sided(double t, double df) {
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double ip_t_critical(double alpha, double df) {
  double lo = 0, hi = 1e6;
  for (int i = 0; i < 200; i++) {
    double mid = (lo + hi) / 2;
    if (ip_t_two_sided(mid, df) > alpha)
      lo = mid;
    else
      hi = mid;
  }
  return (lo + hi) / 2;
}

static void log_moments(const double *v, size_t n, double *mean, double *var) {
  double s = 0, ss = 0;
  for (size_t i = 0; i < n; i++)
    s += log1p(v[i] > 0 ? v[i] : 0);
  *mean = s / (double)n;
  for (size_t i = 0; i < n; i++) {
    double d = log1p(v[i] > 0 ? v[i] : 0) - *mean;
    ss += d * d;
  }
  *var = ss / (double)(n - 1);
}

double ip_noise_p(const double *x, size_t nx, const double *y, size_t ny) {
  if (nx < 2 || ny < 2)
    return 1;
  double mx, vx, my, vy;
  log_moments(x, nx, &mx, &vx);
  log_moments(y, ny, &my, &vy);
  double ex = vx / (double)nx, ey = vy / (double)ny, se2 = ex + ey;
  if (se2 <= 0)
    return mx == my ? 1 : 0;
  double t = (my - mx) / sqrt(se2);
  /* Welch-Satterthwaite degrees of freedom */
  double df = se2 * se2 / (ex * ex / (double)(nx - 1) + ey * ey / (double)(ny - 1));
  return ip_t_two_sided(fabs(t), df);
}
