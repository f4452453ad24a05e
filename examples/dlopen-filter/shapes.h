/* shapes.h - the interface of libshapes.so, the plugin library that the
 * dlopen-filter host loads at run time. */
#ifndef DLOPEN_FILTER_SHAPES_H
#define DLOPEN_FILTER_SHAPES_H

/* Sums the areas of n generated shapes; the host finds it with dlsym. */
double shapes_total_area(unsigned n);
typedef double (*shapes_total_area_fn)(unsigned n);

#endif
