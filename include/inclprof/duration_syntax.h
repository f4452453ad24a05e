/* duration_syntax.h - the one way durations are written to inclprof, by the
 * command (record --delay, --duration, --flush-every; top --seconds) and the
 * runtime (INCLPROF_DELAY, INCLPROF_DURATION, INCLPROF_FLUSH_EVERY): a
 * decimal number, optionally with a fraction, then a unit us, ms, s, m or h
 * (none: seconds): 500ms, 10s, 2m, 1.5.  The number is read with sscanf,
 * as strtod reads it: the runtime calls no strtod, which a program may
 * define. */
#ifndef INCLPROF_DURATION_SYNTAX_H
#define INCLPROF_DURATION_SYNTAX_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* 0 and *ns set when s is a duration of at most 100 days; -1 otherwise. */
static inline int ip_duration_parse(const char *s, uint64_t *ns) {
  static const struct {
    const char *unit;
    double ns;
  } units[] = {{"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}, {"", 1e9}};
  if (!s || *s < '0' || *s > '9')
    return -1;
  double v;
  int used = -1;
  if (sscanf(s, "%lf%n", &v, &used) != 1 || used < 0)
    return -1;
  const char *end = s + used;
  for (size_t i = 0; i < sizeof units / sizeof *units; i++)
    if (!strcmp(end, units[i].unit) && v * units[i].ns <= 8.64e15) {
      *ns = (uint64_t)(v * units[i].ns + 0.5);
      return 0;
    }
  return -1;
}

#endif
