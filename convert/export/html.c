/* export/html.c - `inclprof export --format html`: one self-contained HTML
 * page (no network fetches) showing an interactive flame graph (icicle) of
 * the merged call tree and of each selected thread's, drawn by the page's
 * own script (export/html_page.c).  The data is embedded as JSON: the
 * function names once, then per tree its call paths in preorder (name index,
 * depth, calls and one Inclusive value per value column); the page derives
 * the Exclusive values and the layout.  The value columns are the table
 * below: a new column is one row there.  Each name's module, and whether
 * the module has instrumented functions, let the page fold the others
 * (libc and the like) into one frame per module.  When samples know their address,
 * "lines" gives each function's hottest source lines for its tooltip. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/exporter.h"
#include "export/html_page.h"
#include "export/json.h"
#include "export/sample_lines.h"
#include "export/tree.h"
#include "inclprof_abi.h"
#include "util/util.h"

/* One value the page can size frames by and shows in every tooltip. */
typedef struct html_column {
  const char *name; /* the value switch's label */
  const char *unit; /* "ns" (shown as time) or "" (a count) */
  uint64_t (*incl)(const ip_values *v);
  uint64_t (*excl)(const ip_values *v); /* for the time outside every function */
  int (*present)(const ip_session *s);  /* NULL: always */
  const char *share_of;                 /* drawn inside each frame as its share of that column */
} html_column;

static uint64_t el_incl(const ip_values *v) { return v->el_incl; }
static uint64_t el_excl(const ip_values *v) { return v->el_excl; }
static uint64_t app_incl(const ip_values *v) { return v->app_incl; }
static uint64_t app_excl(const ip_values *v) { return v->app_excl; }
static uint64_t smp_incl(const ip_values *v) { return v->smp_incl; }
static uint64_t smp_excl(const ip_values *v) { return v->smp_excl; }
static uint64_t pre_incl(const ip_values *v) { return v->wait_incl[IP_W_PREEMPTED]; }
static uint64_t pre_excl(const ip_values *v) { return v->wait_excl[IP_W_PREEMPTED]; }
static uint64_t blk_incl(const ip_values *v) { return v->wait_incl[IP_W_BLOCKED]; }
static uint64_t blk_excl(const ip_values *v) { return v->wait_excl[IP_W_BLOCKED]; }
static uint64_t sys_incl(const ip_values *v) { return v->wait_incl[IP_W_SYSCALL]; }
static uint64_t sys_excl(const ip_values *v) { return v->wait_excl[IP_W_SYSCALL]; }
static uint64_t pf_incl(const ip_values *v) { return v->wait_incl[IP_W_FAULT]; }
static uint64_t pf_excl(const ip_values *v) { return v->wait_excl[IP_W_FAULT]; }
static uint64_t crit_incl(const ip_values *v) { return v->crit_incl; }
static uint64_t crit_excl(const ip_values *v) { return v->crit_excl; }

/* Percentages are over the session total of the column (as in the CSV). */
static const html_column columns[] = {
    {"Elapsed", "ns", el_incl, el_excl, NULL, NULL},
    {"Application", "ns", app_incl, app_excl, NULL, "Elapsed"},
    {"Samples", "", smp_incl, smp_excl, ip_session_sampled, NULL},
    {"Off-CPU preempted", "ns", pre_incl, pre_excl, ip_session_has_wait, NULL},
    {"Off-CPU blocked", "ns", blk_incl, blk_excl, ip_session_has_wait, NULL},
    {"System calls", "ns", sys_incl, sys_excl, ip_session_has_wait, NULL},
    {"Page faults", "ns", pf_incl, pf_excl, ip_session_has_wait, NULL},
    {"Critical path", "ns", crit_incl, crit_excl, ip_session_has_critical, NULL},
};
#define N_COLUMNS (sizeof columns / sizeof columns[0])

typedef struct html {
  const ip_session *s;
  FILE *out;
  const html_column *col[N_COLUMNS]; /* the columns present */
  size_t n_col;
  uint32_t *name_of; /* func -> index in "names", UINT32_MAX before its first use */
  uint32_t *funcs;   /* index in "names" -> func */
  size_t n_names;
  size_t col_k; /* the column being written */
  const char *sep;
} html;

/* A JSON string that is also safe inside <script>: "<" as \u003c. */
static void put_string(FILE *out, const char *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m) {
    ip_json_string(out, "?");
    return;
  }
  ip_json_string(m, s);
  fclose(m);
  for (size_t i = 0; i < len; i++)
    if (buf[i] == '<')
      fputs("\\u003c", out);
    else
      putc(buf[i], out);
  free(buf);
}

static uint32_t name_index(html *x, uint32_t func) {
  if (func >= x->s->n_funcs)
    func = (uint32_t)x->s->n_funcs;
  if (x->name_of[func] == UINT32_MAX) {
    x->funcs[x->n_names] = func;
    x->name_of[func] = (uint32_t)x->n_names++;
  }
  return x->name_of[func];
}

static void put_func(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  html *x = ctx;
  fprintf(x->out, "%s%" PRIu32, x->sep, name_index(x, v->nodes[path[depth - 1]].func));
  x->sep = ",";
}
static void put_depth(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  html *x = ctx;
  (void)v, (void)path;
  fprintf(x->out, "%s%zu", x->sep, depth - 1);
  x->sep = ",";
}
static void put_calls(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  html *x = ctx;
  fprintf(x->out, "%s%" PRIu64, x->sep, v->nodes[path[depth - 1]].v.calls);
  x->sep = ",";
}
static void put_value(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  html *x = ctx;
  fprintf(x->out, "%s%" PRIu64, x->sep, x->col[x->col_k]->incl(&v->nodes[path[depth - 1]].v));
  x->sep = ",";
}

static void put_array(html *x, const char *key, const ip_tree_view *v, ip_path_fn fn) {
  fprintf(x->out, ",\"%s\":[", key);
  x->sep = "";
  ip_tree_walk(v, fn, x);
  putc(']', x->out);
}

static void put_tree(html *x, const ip_tree_view *v) {
  char label[96];
  if (v->thread)
    ip_thread_label(v->thread, label, sizeof label);
  fputs("{\"name\":", x->out);
  put_string(x->out, v->thread ? label : "all threads");
  put_array(x, "f", v, put_func);
  put_array(x, "d", v, put_depth);
  put_array(x, "c", v, put_calls);
  fputs(",\"v\":[", x->out);
  for (x->col_k = 0; x->col_k < x->n_col; x->col_k++) {
    fputs(x->col_k ? ",[" : "[", x->out);
    x->sep = "";
    ip_tree_walk(v, put_value, x);
    putc(']', x->out);
  }
  fputs("],\"r\":[", x->out);
  for (size_t k = 0; k < x->n_col; k++)
    fprintf(x->out, "%s%" PRIu64, k ? "," : "", v->n_nodes ? x->col[k]->excl(&v->nodes[0].v) : 0);
  fputs("]}", x->out);
}

static void put_trees(html *x, const ip_export_opts *o) {
  ip_export_trees merged, threads;
  ip_export_trees_build(&merged, x->s, 1, &o->sel);
  ip_export_trees_build(&threads, x->s, 0, &o->sel);
  fputs(",\"trees\":[", x->out);
  for (size_t i = 0; i < merged.n_views; i++)
    put_tree(x, &merged.views[i]);
  for (size_t i = 0; threads.n_views > 1 && i < threads.n_views; i++) {
    fputs(",\n", x->out);
    put_tree(x, &threads.views[i]);
  }
  fputs("]", x->out);
  ip_export_trees_free(&merged);
  ip_export_trees_free(&threads);
}

static void put_columns(html *x) {
  fputs("\"columns\":[", x->out);
  for (size_t k = 0; k < x->n_col; k++) {
    fprintf(x->out, "%s{\"name\":", k ? "," : "");
    put_string(x->out, x->col[k]->name);
    fprintf(x->out, ",\"unit\":\"%s\",\"total\":%" PRIu64 "}", x->col[k]->unit,
            x->col[k]->incl(&x->s->total));
  }
  fputs("]", x->out);
  for (size_t k = 0; k < x->n_col; k++)
    for (size_t of = 0; x->col[k]->share_of && of < x->n_col; of++)
      if (!strcmp(x->col[of]->name, x->col[k]->share_of)) {
        fprintf(x->out, ",\"share\":[%zu,%zu]", k, of);
        return; /* the page draws one share */
      }
}

static void put_names(html *x) {
  fputs(",\n\"names\":[", x->out);
  for (size_t i = 0; i < x->n_names; i++) {
    uint32_t f = x->funcs[i];
    const ip_func *fn = f < x->s->n_funcs ? &x->s->funcs[f] : NULL;
    if (i)
      putc(',', x->out);
    put_string(x->out, !fn ? "?" : fn->pretty && *fn->pretty ? fn->pretty : fn->name);
  }
  fputs("]", x->out);
}

static const char *base_name(const char *path);

/* "mods": per module, its base name and whether any function of it is
 * instrumented (the page folds the others into one frame each); "nm": per
 * name, its module (-1: none). */
static void put_modules(html *x) {
  const ip_session *s = x->s;
  unsigned char *inst = ip_must_calloc(s->n_modules + 1, 1);
  for (size_t f = 0; f < s->n_funcs; f++)
    if (s->funcs[f].module < s->n_modules && (s->funcs[f].flags & INCLPROF_FN_INSTRUMENTED))
      inst[s->funcs[f].module] = 1;
  fputs(",\n\"mods\":[", x->out);
  for (size_t m = 0; m < s->n_modules; m++) {
    fputs(m ? ",[" : "[", x->out);
    put_string(x->out, base_name(s->modules[m].path ? s->modules[m].path : "?"));
    fprintf(x->out, ",%d]", inst[m]);
  }
  fputs("],\"nm\":[", x->out);
  for (size_t i = 0; i < x->n_names; i++) {
    uint32_t f = x->funcs[i];
    long m = f < s->n_funcs && s->funcs[f].module < s->n_modules ? (long)s->funcs[f].module : -1;
    fprintf(x->out, "%s%ld", i ? "," : "", m);
  }
  fputs("]", x->out);
  free(inst);
}

enum { HOT_LINES = 3 }; /* lines named per function */

static const char *base_name(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

/* "lines": [[NAME INDEX, "FILE:LINE", SAMPLES, FUNCTION'S SAMPLES], ...],
 * when any line is known, most samples first: each function's HOT_LINES
 * lines with the most Exclusive samples in the selected threads, of its own
 * code (" (inlined NAME)" for a line of a function inlined into it). */
static void put_lines(html *x, const ip_export_opts *o) {
  if (!ip_session_sampled(x->s))
    return;
  ip_sample_lines where;
  ip_line_rows rows;
  ip_sample_lines_init(&where, x->s);
  ip_line_rows_build(x->s, &o->sel, NULL, 0, ip_sample_lines_locate, &where, &rows);
  ip_sample_lines_free(&where);
  unsigned char *named = ip_must_calloc(x->s->n_funcs + 1, 1); /* lines named per function */
  size_t written = 0;
  for (size_t i = 0; i < rows.n; i++) {
    const ip_line_row *r = &rows.v[i];
    const ip_src_frame *fr = &r->where.frame[0];
    uint32_t k = x->name_of[r->func];
    if (!fr->file[0] || k == UINT32_MAX || named[r->func] == HOT_LINES ||
        !ip_sample_in_func(&r->where, &x->s->funcs[r->func]))
      continue;
    named[r->func]++;
    char label[1024];
    int n = snprintf(label, sizeof label, "%s:%u", base_name(fr->file), fr->line);
    if (r->where.n_frames > 1 && n > 0 && (size_t)n < sizeof label)
      snprintf(label + n, sizeof label - (size_t)n, " (inlined %s)", fr->func);
    fputs(written++ ? "," : ",\n\"lines\":[", x->out);
    fprintf(x->out, "[%" PRIu32 ",", k);
    put_string(x->out, label);
    fprintf(x->out, ",%" PRIu64 ",%" PRIu64 "]", r->samples, r->fn_total);
  }
  if (written)
    putc(']', x->out);
  free(named);
  ip_line_rows_free(&rows);
}

/* "prog" or "prog, other": the programs, for the title. */
static void title(const ip_session *s, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = 0;
  for (size_t i = 0; i < s->n_processes && at < len; i++) {
    const char *exe = s->processes[i].executable ? s->processes[i].executable : "";
    const char *slash = strrchr(exe, '/');
    exe = slash ? slash + 1 : exe;
    if (!*exe || strstr(buf, exe))
      continue;
    at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", exe);
  }
}

static int write_html(ip_export_job *job, const ip_session *s) {
  html x = {.s = s, .out = job->out};
  for (size_t k = 0; k < N_COLUMNS; k++)
    if (!columns[k].present || columns[k].present(s))
      x.col[x.n_col++] = &columns[k];
  x.name_of = ip_must_realloc(NULL, s->n_funcs + 1, sizeof *x.name_of);
  x.funcs = ip_must_realloc(NULL, s->n_funcs + 1, sizeof *x.funcs);
  for (size_t i = 0; i <= s->n_funcs; i++)
    x.name_of[i] = UINT32_MAX;
  char name[256];
  title(s, name, sizeof name);
  ip_html_page_head(job->out, name);
  fputs("{", job->out);
  put_columns(&x);
  put_trees(&x, job->opts); /* names are numbered as the trees use them */
  put_names(&x);
  put_modules(&x);
  put_lines(&x, job->opts);
  fputs("}\n", job->out);
  ip_html_page_tail(job->out);
  free(x.name_of);
  free(x.funcs);
  return 0;
}

const ip_exporter ip_exporter_html = {
    .name = "html",
    .readers = "a web browser",
    .default_output = "inclprof.html",
    .options = 0,
    .critical = 1,
    .write = write_html,
};
