/* views/value_table.c - the report's value tables (the table per level,
 * --tree, --callers, --callees, --wait): rows of fields (views/fields.c)
 * and a name.  Printed with the fields --fields chose, in its order; by
 * default with the full set where every name fits beside it or gets
 * ROOM_FOR_NAMES characters, else with the compact set (see
 * docs/commands/inclprof-report.md).  A Module column joins before the
 * names when one name is on rows of two functions (the same function built
 * into two executables, or two libraries), whatever --fields says, with the
 * source line when two such functions share a module, or which copy of a
 * constructor or destructor each is ("(base)", "(deleting)"...). */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "views/views.h"

/* Below this room for names, a terminal too narrow for the full set gets
 * the compact one; below the second, the compact set's last columns are
 * left out too (a line under the table says so). */
#define ROOM_FOR_NAMES 40
#define ROOM_AT_LEAST  24

static size_t add(ip_field *to, size_t n, ip_field f) {
  for (size_t k = 0; k < n; k++)
    if (to[k] == f)
      return n;
  to[n] = f;
  return n + 1;
}

static size_t full_set(const ip_vtable *v, ip_field *f) {
  size_t n = 0;
  const ip_view_opts *o = v->o;
  if (v->wait) {
    for (ip_field k = IP_F_NON_APP; k <= IP_F_OTHER; k++)
      f[n++] = k;
    for (ip_field k = IP_F_NON_APP_EXCL; o->exclusive && k <= IP_F_OTHER_EXCL; k++)
      f[n++] = k;
    memmove(f + 2, f, n * sizeof *f);
    f[0] = IP_F_CALLS, f[1] = IP_F_EL_INCL;
    return n + 2;
  }
  for (ip_field k = IP_F_CALLS; k <= IP_F_APP_EXCL_PCT; k++)
    f[n++] = k;
  for (ip_field k = IP_F_SMP_INCL; o->samples && k <= IP_F_SMP_EXCL_PCT; k++)
    f[n++] = k;
  for (ip_field k = IP_F_AVG; o->per_call && v->rows == IP_BY_FUNCTION && k <= IP_F_MAX; k++)
    f[n++] = k;
  for (ip_field k = IP_F_WALL; v->rows == IP_BY_THREAD && k <= IP_F_APP_WALL; k++)
    f[n++] = k;
  return n;
}

/* The column --sort orders by, shown in the compact set too. */
static int sort_field(ip_sort s, ip_field *f) {
  static const ip_field of[] = {
      [IP_SORT_ELAPSED_INCL] = IP_F_EL_INCL,
      [IP_SORT_ELAPSED_EXCL] = IP_F_EL_EXCL,
      [IP_SORT_APP_INCL] = IP_F_APP_INCL,
      [IP_SORT_APP_EXCL] = IP_F_APP_EXCL,
      [IP_SORT_CALLS] = IP_F_CALLS,
      [IP_SORT_SAMPLES_INCL] = IP_F_SMP_INCL,
      [IP_SORT_SAMPLES_EXCL] = IP_F_SMP_EXCL,
      [IP_SORT_AVG] = IP_F_AVG,
      [IP_SORT_MAX] = IP_F_MAX,
      [IP_SORT_NAME] = IP_F_N,
      [IP_SORT_NON_APP_INCL] = IP_F_NON_APP,
      [IP_SORT_PREEMPTED] = IP_F_PREEMPTED,
      [IP_SORT_BLOCKED] = IP_F_BLOCKED,
      [IP_SORT_SYSCALL] = IP_F_SYSCALLS,
      [IP_SORT_FAULT] = IP_F_FAULTS,
  };
  if ((size_t)s >= sizeof of / sizeof *of || of[s] == IP_F_N)
    return -1;
  *f = of[s];
  return 0;
}

/* Calls, Elapsed Inclusive as time and share, Elapsed Exclusive as share
 * (the shares read as perf's Children and Self), and the --sort column;
 * --wait: Elapsed Inclusive and the Non-Application time by cause. */
static size_t compact_set(const ip_vtable *v, ip_field *f) {
  size_t n = 0;
  const ip_view_opts *o = v->o;
  ip_field by;
  if (v->wait) {
    f[n++] = IP_F_EL_INCL;
    for (ip_field k = IP_F_NON_APP; k <= IP_F_FAULTS; k++)
      f[n++] = k;
    if (o->exclusive)
      f[n++] = IP_F_NON_APP_EXCL;
  } else {
    f[n++] = IP_F_CALLS;
    f[n++] = IP_F_EL_INCL;
    f[n++] = IP_F_EL_INCL_PCT;
    f[n++] = IP_F_EL_EXCL_PCT;
    for (ip_field k = IP_F_AVG; o->per_call && v->rows == IP_BY_FUNCTION && k <= IP_F_MAX; k++)
      f[n++] = k;
    if (v->rows == IP_BY_THREAD)
      f[n++] = IP_F_EL_WALL;
  }
  if (!sort_field(o->sort, &by))
    n = add(f, n, by);
  return n;
}

void ip_vtable_init(ip_vtable *v, const ip_session *s, const ip_view_opts *o, ip_level rows,
                    int wait, const char *name_title) {
  memset(v, 0, sizeof *v);
  v->s = s, v->o = o, v->rows = rows, v->wait = wait;
  if (o->fields.n) {
    for (size_t k = 0; k < o->fields.n; k++)
      v->col[v->n_col++] = o->fields.f[k];
    if (rows == IP_BY_FUNCTION)
      v->n_col = add(v->col, v->n_col, IP_F_MODULE);
  } else {
    ip_field full[IP_F_N], compact[IP_F_N];
    size_t nf = full_set(v, full), nc = compact_set(v, compact);
    for (size_t k = 0; k < nf; k++)
      v->n_col = add(v->col, v->n_col, full[k]);
    for (size_t k = 0; k < nc; k++)
      v->n_col = add(v->col, v->n_col, compact[k]);
    if (rows == IP_BY_FUNCTION)
      v->n_col = add(v->col, v->n_col, IP_F_MODULE);
  }
  ip_tt_init(&v->t, v->n_col + 1);
  for (size_t k = 0; k < v->n_col; k++)
    ip_tt_add(&v->t, "%s", ip_field_title(v->col[k]));
  ip_tt_add(&v->t, "%s", name_title);
  ip_tt_names(&v->t, v->n_col, rows == IP_BY_FUNCTION ? 0 : IP_CUT_PLAIN);
  ip_must_grow((void **)&v->funcs, &v->cap, 1, sizeof *v->funcs);
  v->funcs[v->n_rows++] = UINT32_MAX; /* the titles */
}

void ip_vtable_row(ip_vtable *v, const ip_values *val, const ip_thread *th, uint32_t func,
                   unsigned level, const char *name) {
  for (size_t k = 0; k < v->n_col; k++)
    ip_field_cell(&v->t, v->col[k], v->s, val, th);
  ip_tt_add_level(&v->t, level, "%s", name);
  ip_must_grow((void **)&v->funcs, &v->cap, v->n_rows + 1, sizeof *v->funcs);
  v->funcs[v->n_rows++] = func < v->s->n_funcs ? func : UINT32_MAX;
}

void ip_vtable_note(ip_vtable *v, unsigned level, const char *text) {
  for (size_t k = 0; k < v->n_col; k++)
    ip_tt_add(&v->t, "%s", "");
  ip_tt_add_level(&v->t, level, "%s", text);
  ip_must_grow((void **)&v->funcs, &v->cap, v->n_rows + 1, sizeof *v->funcs);
  v->funcs[v->n_rows++] = UINT32_MAX;
}

static const char *name_of(const ip_vtable *v, size_t r) {
  char **c = ip_tt_cell((ip_ttable *)&v->t, r, v->n_col);
  return c ? *c : "";
}

static int by_name(const void *x, const void *y, void *ctx) {
  const ip_vtable *v = ctx;
  size_t a = *(const size_t *)x, b = *(const size_t *)y;
  int d = strcmp(name_of(v, a), name_of(v, b));
  if (!d)
    d = (v->funcs[a] > v->funcs[b]) - (v->funcs[a] < v->funcs[b]);
  return d;
}

/* Rows whose name is on another row of another function: *twin[r] = 1, or
 * 2 when that other function is in the same module.  Returns how many. */
static size_t find_twins(const ip_vtable *v, unsigned char *twin) {
  size_t *idx = ip_must_calloc(v->n_rows + 1, sizeof *idx), n = 0, found = 0;
  for (size_t r = 1; r < v->n_rows; r++)
    if (v->funcs[r] != UINT32_MAX)
      idx[n++] = r;
  qsort_r(idx, n, sizeof *idx, by_name, (void *)v);
  for (size_t from = 0, to; from < n; from = to) {
    for (to = from + 1; to < n && !strcmp(name_of(v, idx[to]), name_of(v, idx[from])); to++)
      ;
    for (size_t a = from; a < to; a++)
      for (size_t b = from; b < to; b++) {
        uint32_t fa = v->funcs[idx[a]], fb = v->funcs[idx[b]];
        if (fa == fb)
          continue;
        int same_module = v->s->funcs[fa].module == v->s->funcs[fb].module;
        if (!twin[idx[a]])
          found++;
        if (twin[idx[a]] < 1 + same_module)
          twin[idx[a]] = (unsigned char)(1 + same_module);
      }
  }
  free(idx);
  return found;
}

/* The shortest end of each module's path that no other module of the
 * table ends in (its base name, mostly). */
static const char *module_label(const ip_session *s, const unsigned char *used, uint32_t m) {
  const char *path = s->modules[m].path ? s->modules[m].path : "?";
  const char *at = path + strlen(path);
  for (;;) {
    while (at > path && at[-1] != '/')
      at--;
    int clash = 0;
    for (size_t k = 0; k < s->n_modules && !clash; k++) {
      const char *other = s->modules[k].path;
      size_t lo = other ? strlen(other) : 0, la = strlen(at);
      clash = k != m && used[k] && lo >= la && !strcmp(other + lo - la, at) &&
              (lo == la || other[lo - la - 1] == '/');
    }
    if (!clash || at == path)
      return at;
    at--; /* the slash: take the directory before it too */
  }
}

/* Which of the copies GCC emits of a constructor or destructor an assembler
 * name is (the demangler writes them alike): "base" for C2 or D2, etc.;
 * NULL for any other name. */
static const char *structor_variant(const char *name) {
  static const char *const ctor[] = {NULL, "complete", "base", "allocating", "unified", "comdat"};
  static const char *const dtor[] = {"deleting", "complete", "base", NULL, "unified", "comdat"};
  if (!name || strncmp(name, "_Z", 2))
    return NULL;
  for (const char *p = name + 2; p[0] && p[1] && p[2]; p++) {
    int end_of_name = p[-1] == 'E' || (p[-1] >= '0' && p[-1] <= '9') ||
                      (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z');
    if ((p[0] == 'C' || p[0] == 'D') && p[1] >= '0' && p[1] <= '5' && strchr("EIB", p[2]) &&
        end_of_name) {
      size_t copy = (size_t)(p[1] - '0');
      return p[0] == 'C' ? ctor[copy] : dtor[copy];
    }
  }
  return NULL;
}

static void module_cells(ip_vtable *v, size_t col, const unsigned char *twin) {
  const ip_session *s = v->s;
  unsigned char *used = ip_must_calloc(s->n_modules + 1, 1);
  for (size_t r = 1; r < v->n_rows; r++)
    if (v->funcs[r] != UINT32_MAX && s->funcs[v->funcs[r]].module < s->n_modules)
      used[s->funcs[v->funcs[r]].module] = 1;
  for (size_t r = 1; r < v->n_rows; r++) {
    char **cell = ip_tt_cell(&v->t, r, col);
    if (!cell || v->funcs[r] == UINT32_MAX)
      continue;
    const ip_func *f = &s->funcs[v->funcs[r]];
    const char *label = f->module < s->n_modules ? module_label(s, used, f->module) : "?";
    const char *file = f->file ? strrchr(f->file, '/') : NULL;
    file = file ? file + 1 : f->file;
    free(*cell);
    *cell = NULL;
    if (twin && twin[r] == 2) {
      const char *variant = structor_variant(f->name);
      char where[512] = "";
      if (file && *file && !variant)
        snprintf(where, sizeof where, " %s:%u", file, f->line);
      if (asprintf(cell, "%s%s%s%s%s", label, where, variant ? " (" : "", variant ? variant : "",
                   variant ? ")" : "") < 0)
        *cell = NULL;
    }
    if (!*cell)
      *cell = ip_must_strdup(label);
  }
  free(used);
}

static size_t col_of(const ip_vtable *v, ip_field f) {
  for (size_t k = 0; k < v->n_col; k++)
    if (v->col[k] == f)
      return k;
  return SIZE_MAX;
}

/* The table columns of fields f[0, n), then the module's, then the names. */
static size_t columns(const ip_vtable *v, const ip_field *f, size_t n, int module, size_t *cols) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (col_of(v, f[i]) != SIZE_MAX)
      cols[k++] = col_of(v, f[i]);
  if (module && col_of(v, IP_F_MODULE) != SIZE_MAX)
    cols[k++] = col_of(v, IP_F_MODULE);
  cols[k++] = v->n_col;
  return k;
}

/* The room the columns cols[0, n - 1) leave the names in width. */
static size_t room_left(const ip_vtable *v, const size_t *cols, size_t n, int indent,
                        size_t width) {
  size_t used = (size_t)indent;
  for (size_t k = 0; k + 1 < n; k++)
    used += ip_tt_col_width(&v->t, cols[k]) + 2;
  return width > used ? width - used : 0;
}

void ip_vtable_print(ip_vtable *v, FILE *out, int indent) {
  const ip_view_opts *o = v->o;
  size_t width = o->width;
  size_t module = col_of(v, IP_F_MODULE);
  int listed = 0; /* --fields names the module: where it says */
  for (size_t k = 0; k < o->fields.n; k++)
    listed |= o->fields.f[k] == IP_F_MODULE;
  unsigned char *twin = ip_must_calloc(v->n_rows + 1, 1);
  int show_module = module != SIZE_MAX && (find_twins(v, twin) || listed);
  if (module != SIZE_MAX)
    module_cells(v, module, twin);
  free(twin);
  size_t *cols = ip_must_calloc(v->n_col + 2, sizeof *cols), n = 0, left_out = 0;
  if (o->fields.n) {
    for (size_t k = 0; k < o->fields.n; k++)
      cols[n++] = col_of(v, o->fields.f[k]);
    if (show_module && !listed)
      cols[n++] = module;
    cols[n++] = v->n_col;
  } else {
    ip_field set[IP_F_N] = {0};
    n = columns(v, set, full_set(v, set), show_module, cols);
    size_t names = ip_tt_col_width(&v->t, v->n_col);
    if (width && names > room_left(v, cols, n, indent, width) &&
        room_left(v, cols, n, indent, width) < ROOM_FOR_NAMES) {
      size_t nf = compact_set(v, set);
      n = columns(v, set, nf, show_module, cols);
      while (nf > 1 && names > room_left(v, cols, n, indent, width) &&
             room_left(v, cols, n, indent, width) < ROOM_AT_LEAST) {
        n = columns(v, set, --nf, show_module, cols);
        left_out++;
      }
    }
  }
  ip_tt_layout l = {indent, width, cols, n};
  ip_tt_print_layout(&v->t, out, &l);
  if (left_out)
    fprintf(out, "%*s(%zu column%s left out to fit; --wide or --fields shows them)\n", indent, "",
            left_out, left_out == 1 ? "" : "s");
  free(cols);
}

void ip_vtable_free(ip_vtable *v) {
  ip_tt_free(&v->t);
  free(v->funcs);
  memset(v, 0, sizeof *v);
}
