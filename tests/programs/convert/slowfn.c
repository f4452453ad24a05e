/* slowfn.c - four compute functions of equal work, called in turn 2000 times;
 * `--slow NAME` makes that one do three times its work.  The workload of
 * tests/integration/convert_diff.sh. */
#include <stdio.h>
#include <string.h>

static volatile double sink;
static const char *slow = "";

static inline __attribute__((always_inline)) void spin(const char *self) {
  long n = strcmp(self, slow) ? 20000 : 60000;
  double x = 0;
  for (long i = 0; i < n; i++)
    x += (double)i * 0.5;
  sink += x;
}

__attribute__((noinline)) void alpha(void) { spin("alpha"); }
__attribute__((noinline)) void beta(void) { spin("beta"); }
__attribute__((noinline)) void gamma_(void) { spin("gamma_"); }
__attribute__((noinline)) void delta(void) { spin("delta"); }

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--slow"))
    slow = argv[2];
  for (int r = 0; r < 2000; r++) {
    alpha();
    beta();
    gamma_();
    delta();
  }
  printf("%s\n", sink > 0 ? "done" : "?");
  return 0;
}
