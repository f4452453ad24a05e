/* analysis/diff.c - loads the runs of both sides one at a time, matches their
 * rows by name and computes medians, changes and the rank test (see
 * analysis/diff.h). */
#include "fnv1a.h"
#include "analysis/diff.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "analysis/noise_test.h"
#include "analysis/ranktest.h"
#include "util/util.h"

static uint64_t fnv(const char *a, const char *b) {
  return ip_fnv1a64_str(ip_fnv1a64_str(IP_FNV1A64_BASIS, a), b);
}

static const char *base_name(const char *path) {
  const char *s = path ? strrchr(path, '/') : NULL;
  return s ? s + 1 : path ? path : "";
}

/* The name a row is matched by across runs, into buf. */
static void row_key(const ip_session *s, ip_level by, uint32_t key, char *buf, size_t n,
                    const char **file) {
  *file = "";
  switch (by) {
  case IP_BY_FUNCTION:
    snprintf(buf, n, "%s", s->funcs[key].pretty);
    *file = s->funcs[key].file;
    return;
  case IP_BY_MODULE:
    snprintf(buf, n, "%s", base_name(s->modules[key].path));
    return;
  case IP_BY_THREAD: {
    const ip_thread *t = &s->threads[key];
    unsigned rank = 0;
    for (uint32_t i = 0; i < key; i++)
      rank += s->threads[i].process == t->process;
    if (t->name)
      snprintf(buf, n, "%s", t->name);
    else
      snprintf(buf, n, "%s thread %u", base_name(s->processes[t->process].executable), rank + 1);
    return;
  }
  case IP_BY_PROCESS: {
    unsigned rank = 0;
    for (uint32_t i = 0; i < key; i++)
      rank += !strcmp(s->processes[i].executable, s->processes[key].executable);
    snprintf(buf, n, "%s #%u", base_name(s->processes[key].executable), rank + 1);
    return;
  }
  }
}

/* Per run of one side, every row's values (runs x rows, rows growing). */
typedef struct run_values {
  ip_values *v; /* [row * n_runs + run] */
} run_values;

/* The row of (name, file), added if new: rows are keyed by the 64-bit FNV-1a
 * hash of both (a collision among a program's few thousand names is not
 * expected). */
static ip_diff_row *find_row(ip_diff *d, ip_u64map *index, const char *name, const char *file,
                             run_values rv[2]) {
  uint64_t h = fnv(name, file);
  uint32_t at = ip_u64map_get(index, h);
  if (at != UINT32_MAX)
    return &d->rows[at];
  if (d->n == d->cap) {
    size_t old = d->cap;
    d->cap = d->cap ? 2 * d->cap : 64;
    d->rows = ip_must_realloc(d->rows, d->cap, sizeof *d->rows);
    for (int side = 0; side < 2; side++) {
      size_t runs = d->runs[side] ? d->runs[side] : 1;
      rv[side].v = ip_must_realloc(rv[side].v, d->cap * runs, sizeof *rv[side].v);
      memset(rv[side].v + old * runs, 0, (d->cap - old) * runs * sizeof *rv[side].v);
    }
  }
  ip_diff_row *r = &d->rows[d->n];
  memset(r, 0, sizeof *r);
  r->name = ip_must_strdup(name);
  r->file = ip_must_strdup(file);
  ip_u64map_put(index, h, (uint32_t)d->n++);
  return r;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static uint64_t median(uint64_t *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_u64);
  return n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2 + (v[n / 2 - 1] % 2 + v[n / 2] % 2) / 2;
}

/* Medians of every value of row r on one side. */
static void row_medians(const ip_values *runs, size_t n, ip_values *out) {
  uint64_t *tmp = ip_must_calloc(n, sizeof *tmp);
  size_t offs[] = {offsetof(ip_values, calls),    offsetof(ip_values, el_incl),
                   offsetof(ip_values, el_excl),  offsetof(ip_values, app_incl),
                   offsetof(ip_values, app_excl), offsetof(ip_values, smp_incl),
                   offsetof(ip_values, smp_excl)};
  for (size_t k = 0; k < sizeof offs / sizeof offs[0]; k++) {
    for (size_t i = 0; i < n; i++)
      tmp[i] = *(const uint64_t *)((const char *)&runs[i] + offs[k]);
    *(uint64_t *)((char *)out + offs[k]) = median(tmp, n);
  }
  free(tmp);
}

/* Damage that could be read around is warned about on stderr, as by report. */
static int load_run(ip_session *s, char *path, unsigned latency) {
  char err[512] = "";
  /* Only the session's sums of each row are compared. */
  ip_load_opts lo = {
      .error = err, .error_len = sizeof err, .latency = latency, .keep = IP_KEEP_TOTALS};
  if (ip_session_load(s, &path, 1, &lo)) {
    fprintf(stderr, "inclprof diff: %s\n", err);
    return -1;
  }
  if (!s->total.el_incl && s->n_damaged) {
    fprintf(stderr,
            "inclprof diff: %s: damaged before any call was recorded (the warning above says "
            "where); record that run again\n",
            path);
    ip_session_free(s);
    return -1;
  }
  if (!s->total.el_incl || !s->n_processes) {
    fprintf(stderr,
            "inclprof diff: %s: no instrumented function ran in this trace; give runs of a "
            "program built with the plugin\n",
            path);
    ip_session_free(s);
    return -1;
  }
  return 0;
}

static int compare_rows(const void *pa, const void *pb) {
  const ip_diff_row *a = pa, *b = pb;
  uint64_t x = (uint64_t)llabs(a->delta_excl), y = (uint64_t)llabs(b->delta_excl);
  if (x != y)
    return x < y ? 1 : -1;
  return strcmp(a->name, b->name);
}

uint64_t ip_diff_excl(const ip_diff *d, const ip_values *v) {
  return d->application ? v->app_excl : v->el_excl;
}

uint64_t ip_diff_incl(const ip_diff *d, const ip_values *v) {
  return d->application ? v->app_incl : v->el_incl;
}

int ip_diff_build(ip_diff *d, ip_level by, int application, char *const *paths[2],
                  const size_t n[2], double threshold_pct, int force) {
  memset(d, 0, sizeof *d);
  d->by = by;
  d->application = application;
  d->runs[0] = n[0];
  d->runs[1] = n[1];
  run_values rv[2] = {{0}, {0}};
  ip_u64map index = {0};
  uint64_t *totals[2] = {ip_must_calloc(n[0], sizeof(uint64_t)),
                         ip_must_calloc(n[1], sizeof(uint64_t))};
  const char *first_path = NULL;
  int rc = 0;
  ip_lat *lat[2] = {NULL, NULL}; /* per row, each side's calls (functions) */
  size_t cap_lat[2] = {0, 0};
  for (int side = 0; side < 2 && !rc; side++)
    for (size_t run = 0; run < n[side] && !rc; run++) {
      ip_session s;
      if (load_run(&s, paths[side][run],
                   by != IP_BY_FUNCTION ? 0
                   : application        ? IP_LAT_APPLICATION
                                        : IP_LAT_ELAPSED)) {
        rc = -1;
        break;
      }
      d->n_damaged += s.n_damaged;
      const char *exe = base_name(s.processes[0].executable);
      if (!run) {
        first_path = paths[side][0];
        d->program[side] = ip_must_strdup(exe);
      } else if (strcmp(d->program[side], exe)) {
        fprintf(stderr,
                "inclprof diff: %s profiles '%s' but %s, on the same side, profiles '%s'; give "
                "runs of one build on each side\n",
                paths[side][run], exe, first_path, d->program[side]);
        rc = -1;
      }
      totals[side][run] = ip_diff_incl(d, &s.total);
      ip_row *rows;
      size_t nr = ip_aggregate(&s, by, NULL, &rows);
      ip_lat_pair *fl = by == IP_BY_FUNCTION ? ip_lat_by_function(&s, NULL) : NULL;
      for (size_t i = 0; i < nr && !rc; i++) {
        char name[1024];
        const char *file;
        row_key(&s, by, rows[i].key, name, sizeof name, &file);
        ip_diff_row *r = find_row(d, &index, name, file, rv);
        size_t at = (size_t)(r - d->rows);
        ip_values_add(&rv[side].v[at * n[side] + run], &rows[i].v);
        r->present[side] = 1;
        if (fl) {
          if (at >= cap_lat[side]) {
            size_t old = cap_lat[side];
            ip_must_grow((void **)&lat[side], &cap_lat[side], at + 1, sizeof *lat[side]);
            memset(lat[side] + old, 0, (cap_lat[side] - old) * sizeof *lat[side]);
          }
          ip_lat_merge(&lat[side][at], application ? &fl[rows[i].key].app : &fl[rows[i].key].el);
        }
      }
      ip_lat_free_all(fl, s.n_funcs);
      free(rows);
      ip_session_free(&s);
    }
  if (!rc) {
    d->session_med[0] = median(totals[0], n[0]);
    d->session_med[1] = median(totals[1], n[1]);
    for (size_t i = 0; i < d->n; i++) {
      ip_diff_row *r = &d->rows[i];
      for (int side = 0; side < 2; side++) {
        row_medians(&rv[side].v[i * n[side]], n[side], &r->med[side]);
        r->excl[side] = ip_must_calloc(n[side], sizeof(double));
        for (size_t run = 0; run < n[side]; run++)
          r->excl[side][run] = (double)ip_diff_excl(d, &rv[side].v[i * n[side] + run]);
      }
      r->delta_excl = (int64_t)ip_diff_excl(d, &r->med[1]) - (int64_t)ip_diff_excl(d, &r->med[0]);
      r->delta_incl = (int64_t)ip_diff_incl(d, &r->med[1]) - (int64_t)ip_diff_incl(d, &r->med[0]);
      r->delta_pct =
          d->session_med[0] ? 100.0 * (double)r->delta_excl / (double)d->session_med[0] : 0;
      /* Welch's test finds a change in 3 + 3 runs that agree; one run far
       * off (a loaded machine) widens its spread, where the rank test, which
       * asks only whether every run of one side is above the other's, holds. */
      if (n[0] >= IP_DIFF_MIN_RUNS && n[1] >= IP_DIFF_MIN_RUNS) {
        double welch = ip_noise_p(r->excl[0], n[0], r->excl[1], n[1]);
        double rank = ip_mann_whitney_p(r->excl[0], n[0], r->excl[1], n[1]);
        r->p = welch < rank ? welch : rank;
      } else {
        r->p = 1;
      }
      for (int side = 0; side < 2; side++)
        r->p99[side] = i < cap_lat[side] ? ip_lat_quantile(&lat[side][i], 0.99) : 0;
      d->base_rows += r->present[0];
      d->shared += r->present[0] && r->present[1];
      r->marked = r->present[0] && r->present[1] && r->p < IP_DIFF_ALPHA &&
                  fabs(r->delta_pct) >= threshold_pct;
    }
    qsort(d->rows, d->n, sizeof *d->rows, compare_rows);
    /* Builds may be named apart (app, app.v2); programs that share fewer
     * than half of BASE's rows are not two builds of one. */
    if (strcmp(d->program[0], d->program[1]) && 2 * d->shared < d->base_rows && !force) {
      fprintf(stderr,
              "inclprof diff: %s profiles '%s' and %s profiles '%s', which share %zu of "
              "BASE's %zu rows: not two builds of one program; give --force to compare them "
              "anyway\n",
              paths[0][0], d->program[0], paths[1][0], d->program[1], d->shared, d->base_rows);
      rc = -1;
    }
  }
  for (int side = 0; side < 2; side++)
    ip_lat_free_array(lat[side], cap_lat[side]);
  free(rv[0].v);
  free(rv[1].v);
  free(totals[0]);
  free(totals[1]);
  ip_u64map_free(&index);
  if (rc)
    ip_diff_free(d);
  return rc;
}

void ip_diff_free(ip_diff *d) {
  for (size_t i = 0; i < d->n; i++) {
    free(d->rows[i].name);
    free(d->rows[i].file);
    free(d->rows[i].excl[0]);
    free(d->rows[i].excl[1]);
  }
  free(d->rows);
  free(d->program[0]);
  free(d->program[1]);
  memset(d, 0, sizeof *d);
}
