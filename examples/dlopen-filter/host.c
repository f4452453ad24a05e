/* host.c - dlopen-filter: loads libshapes.so at run time, calls it through a
 * pointer found with dlsym, unloads it with dlclose, and does that `rounds`
 * times, so the library's functions are registered and unregistered with the
 * runtime on every load.   usage: dlopen-host LIBRARY [ROUNDS] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "shapes.h"

/* Excluded by the filter file (debug_*). */
__attribute__((noinline)) static void debug_log(const char *what, double value) {
  if (getenv("DLOPEN_HOST_DEBUG"))
    fprintf(stderr, "dlopen-host: %s %g\n", what, value);
}

static int run_round(const char *library, unsigned shapes, double *area) {
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    fprintf(stderr, "dlopen-host: %s\n", dlerror());
    return -1;
  }
  shapes_total_area_fn fn = (shapes_total_area_fn)dlsym(handle, "shapes_total_area");
  if (!fn) {
    fprintf(stderr, "dlopen-host: %s: no shapes_total_area: %s\n", library, dlerror());
    dlclose(handle);
    return -1;
  }
  *area = fn(shapes);
  debug_log("round area", *area);
  return dlclose(handle);
}

int main(int argc, char **argv) {
  unsigned rounds = 3;
  if (argc < 2 || argc > 3 || (argc == 3 && (rounds = (unsigned)atoi(argv[2])) == 0)) {
    fprintf(stderr, "usage: dlopen-host LIBRARY [ROUNDS]\n");
    return 2;
  }
  double area = 0, sum = 0;
  for (unsigned r = 0; r < rounds; r++) {
    if (run_round(argv[1], 30000, &area) != 0)
      return 1;
    sum += area;
  }
  printf("dlopen-host: %u rounds of %s, total area %.1f\n", rounds, argv[1], sum);
  return 0;
}
