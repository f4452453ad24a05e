/* shapes.c - libshapes.so: geometry loaded by the host with dlopen.  Built
 * with the inclprof plugin and the filter file, which keeps the shape
 * functions and excludes the checksum_* helpers. */
#include "shapes.h"

#include <math.h>

__attribute__((noinline)) double circle_area(double r) { return M_PI * r * r; }

__attribute__((noinline)) double rectangle_area(double w, double h) { return w * h; }

__attribute__((noinline)) double triangle_area(double a, double b, double c) {
  double s = (a + b + c) / 2;
  return sqrt(s * (s - a) * (s - b) * (s - c));
}

/* Excluded by the filter file: no probes, its time counts as its caller's. */
__attribute__((noinline)) unsigned checksum_mix(unsigned h, double v) {
  return (h ^ (unsigned)(v * 1000.0)) * 16777619u;
}

double shapes_total_area(unsigned n) {
  double total = 0;
  unsigned check = 2166136261u;
  for (unsigned i = 0; i < n; i++) {
    double x = 1.0 + (i % 17), area;
    switch (i % 3) {
    case 0:
      area = circle_area(x);
      break;
    case 1:
      area = rectangle_area(x, x + 2);
      break;
    default:
      area = triangle_area(x + 3, x + 4, x + 5);
      break;
    }
    check = checksum_mix(check, area);
    total += area;
  }
  return check ? total : -total;
}
