/* convert_fixture.h - helpers shared by the converter's Check tests: write a
 * generated trace into a temporary directory, load it, look values up. */
#ifndef INCLPROF_TEST_CONVERT_FIXTURE_H
#define INCLPROF_TEST_CONVERT_FIXTURE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/aggregate.h"
#include "model/profile.h"
#include "trace_gen.h"

/* A fresh temporary directory (removed by fx_cleanup). */
static inline char *fx_dir(void) {
  static char dir[64];
  snprintf(dir, sizeof dir, "/tmp/inclprof-unit.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  return dir;
}

static inline void fx_cleanup(const char *dir) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* Writes t as DIR/NAME and returns the path (static buffer). */
static inline const char *fx_write(const char *dir, const char *name, const tg_trace *t) {
  static char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  ck_assert_int_eq(tg_write(t, path), 0);
  return path;
}

/* Loads one path (file or directory) quietly; fails the test on error. */
static inline void fx_load(ip_session *s, const char *path, int raw) {
  ip_load_opts o = {.raw = raw, .quiet = 1};
  char *p = (char *)path;
  ck_assert_int_eq(ip_session_load(s, &p, 1, &o), 0);
}

/* Session-wide values of the function with this demangled name. */
static inline ip_values fx_func(const ip_session *s, const char *name) {
  ip_row *rows;
  size_t n = ip_aggregate(s, IP_BY_FUNCTION, NULL, &rows);
  ip_values v;
  memset(&v, 0, sizeof v);
  int found = 0;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(s->funcs[rows[i].key].pretty, name)) {
      v = rows[i].v;
      found = 1;
    }
  free(rows);
  ck_assert_msg(found, "function %s has no values", name);
  return v;
}

#define fx_assert_values(v, e_incl, e_excl, a_incl, a_excl)                                        \
  do {                                                                                             \
    ck_assert_uint_eq((v).el_incl, (e_incl));                                                      \
    ck_assert_uint_eq((v).el_excl, (e_excl));                                                      \
    ck_assert_uint_eq((v).app_incl, (a_incl));                                                     \
    ck_assert_uint_eq((v).app_excl, (a_excl));                                                     \
  } while (0)

#endif
