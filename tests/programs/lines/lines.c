/* lines.c - one function whose work is on known lines: per round, work()
 * runs the same step 3 units on its first loop's line, 1 unit on its second
 * loop's line and 1 unit inside the inlined mix() (its own line), and calls
 * the uninstrumented note() 3 times from one line and once from another.
 * Every loop is on one line, so a sample's line is its loop's.
 * Usage: lines ROUNDS.  Prints the result. */
#include <stdio.h>
#include <stdlib.h>

#define UNIT 6000L
#define STEP(x) ((x)*6364136223846793005ul + 1442695040888963407ul)

unsigned long note(unsigned long x); /* lines_note.c, built without the plugin */

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x) {
  for (long i = 0; i < UNIT; i++) x = STEP(x); /* MIX_LINE */
  return x;
}

__attribute__((noinline)) unsigned long work(unsigned long x) {
  for (long i = 0; i < 3 * UNIT; i++) x = STEP(x); /* HEAVY_LINE */
  for (long i = 0; i < UNIT; i++) x = STEP(x); /* LIGHT_LINE */
  x = mix(x);
  for (int k = 0; k < 3; k++) x = note(x); /* NOTE3_LINE */
  x = note(x); /* NOTE1_LINE */
  return x;
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 1000;
  unsigned long x = (unsigned long)argc;
  for (long i = 0; i < rounds; i++)
    x = work(x);
  printf("%lu\n", x);
  return 0;
}
