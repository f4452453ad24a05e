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
 * "lines" gives each function's hottest source lines for its tooltip.
 *
 * The page is taken file by file as the traces are read (ip_exporter's
 * file_done): the threads' paths merged into one tree, their samples by
 * address summed, and each thread's tree spooled to a temporary file, so
 * memory holds the distinct call paths whatever the number of processes. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/exporter.h"
#include "export/html_page.h"
#include "export/json.h"
#include "export/sample_lines.h"
#include "export/tree.h"
#include "export/tree_spool.h"
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

/* One call path of a tree as the page lists it: preorder, its depth below
 * the root and its Inclusive value of every column (present or not). */
typedef struct page_row {
  uint32_t func, depth;
  uint64_t calls;
  uint64_t incl[N_COLUMNS];
} page_row;

/* One tree's page rows, taken by a walk of its view. */
typedef struct page_rows {
  page_row *v;
  size_t n, cap;
} page_rows;

static page_row row_of(const ip_node *nd, size_t depth) {
  page_row row = {nd->func, (uint32_t)(depth - 1), nd->v.calls, {0}};
  for (size_t k = 0; k < N_COLUMNS; k++)
    row.incl[k] = columns[k].incl(&nd->v);
  return row;
}

/* Room for n rows in r (not zeroed: every row is written before it is read). */
static void rows_room(page_rows *r, size_t n) {
  if (n <= r->cap)
    return;
  r->cap = r->cap ? 2 * r->cap : 1024;
  r->cap = r->cap < n ? n : r->cap;
  r->v = ip_must_realloc(r->v, r->cap, sizeof *r->v);
}

static void take_row(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  page_rows *r = ctx;
  rows_room(r, r->n + 1);
  r->v[r->n++] = row_of(&v->nodes[path[depth - 1]], depth);
}

static void count_row(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  (void)v, (void)path, (void)depth;
  ++*(uint64_t *)ctx;
}

/* Writes the row to the spool ctx (its error shows at ferror). */
static void spool_row(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  page_row row = row_of(&v->nodes[path[depth - 1]], depth);
  fwrite(&row, sizeof row, 1, ctx);
}

/* The time outside every function of view v, per column. */
static void root_values(const ip_tree_view *v, uint64_t *excl) {
  for (size_t k = 0; k < N_COLUMNS; k++)
    excl[k] = v->n_nodes ? columns[k].excl(&v->nodes[0].v) : 0;
}

/* One tree: its name, then per call path its name index, depth, calls and
 * each present column's value, then the time outside every function. */
static void put_tree(html *x, const char *name, const page_row *rows, size_t n,
                     const uint64_t *root_excl) {
  fputs("{\"name\":", x->out);
  put_string(x->out, name);
  fputs(",\"f\":[", x->out);
  for (size_t i = 0; i < n; i++)
    fprintf(x->out, "%s%" PRIu32, i ? "," : "", name_index(x, rows[i].func));
  fputs("],\"d\":[", x->out);
  for (size_t i = 0; i < n; i++)
    fprintf(x->out, "%s%" PRIu32, i ? "," : "", rows[i].depth);
  fputs("],\"c\":[", x->out);
  for (size_t i = 0; i < n; i++)
    fprintf(x->out, "%s%" PRIu64, i ? "," : "", rows[i].calls);
  fputs("],\"v\":[", x->out);
  for (size_t k = 0; k < x->n_col; k++) {
    size_t c = (size_t)(x->col[k] - columns);
    fputs(k ? ",[" : "[", x->out);
    for (size_t i = 0; i < n; i++)
      fprintf(x->out, "%s%" PRIu64, i ? "," : "", rows[i].incl[c]);
    putc(']', x->out);
  }
  fputs("],\"r\":[", x->out);
  for (size_t k = 0; k < x->n_col; k++)
    fprintf(x->out, "%s%" PRIu64, k ? "," : "", root_excl[x->col[k] - columns]);
  fputs("]}", x->out);
}

/* What the page needs of the selected threads, taken thread by thread as
 * each file is read: the merged tree, the samples at known addresses, and
 * each thread's page rows spooled to a temporary file (a record per thread:
 * its label, its rows, its time outside every function), written after the
 * merged tree, which numbers the names. */
typedef struct html_files {
  ip_tree_merger merged;
  ip_line_hits hits;
  FILE *spool;
  size_t n_threads;
  char first_label[96]; /* the first thread's: its rows are spooled once a second one comes */
  page_rows rows;
} html_files;

/* Walks the merged tree of a single thread in that thread's own order: the
 * merger puts each new child first, so a node's children are in the
 * reverse of the thread's order. */
static void walk_first(const ip_tree_view *v, ip_path_fn fn, void *ctx) {
  typedef struct {
    uint32_t node, depth;
  } item;
  size_t n = 0, cap = 64, cap_path = 64;
  item *st = ip_must_realloc(NULL, cap, sizeof *st);
  uint32_t *path = ip_must_realloc(NULL, cap_path, sizeof *path);
  for (uint32_t c = v->n_nodes ? v->nodes[0].first_child : IP_NO_NODE; c != IP_NO_NODE;
       c = v->nodes[c].next_sibling)
    ip_must_grow((void **)&st, &cap, n + 1, sizeof *st), st[n++] = (item){c, 1};
  while (n) {
    item it = st[--n];
    ip_must_grow((void **)&path, &cap_path, it.depth, sizeof *path);
    path[it.depth - 1] = it.node;
    fn(ctx, v, path, it.depth);
    for (uint32_t c = v->nodes[it.node].first_child; c != IP_NO_NODE; c = v->nodes[c].next_sibling)
      ip_must_grow((void **)&st, &cap, n + 1, sizeof *st), st[n++] = (item){c, it.depth + 1};
  }
  free(st);
  free(path);
}

/* A thread's record in the spool: its label, its rows (walked by walk), its
 * time outside every function. */
static void spool_thread(html_files *hf, const char *label, const ip_tree_view *v,
                         void (*walk)(const ip_tree_view *, ip_path_fn, void *)) {
  char name[96] = {0};
  uint64_t excl[N_COLUMNS], n = 0;
  snprintf(name, sizeof name, "%s", label);
  root_values(v, excl);
  walk(v, count_row, &n);
  fwrite(name, sizeof name, 1, hf->spool);
  fwrite(&n, sizeof n, 1, hf->spool);
  walk(v, spool_row, hf->spool);
  if (fwrite(excl, sizeof excl, 1, hf->spool) != 1 || ferror(hf->spool)) {
    fclose(hf->spool); /* put_trees says so */
    hf->spool = NULL;
  }
}

/* Thread t into the merged tree and the samples by address; its rows into
 * the spool, the first thread's only once a second one comes (a single
 * thread's page shows the merged tree alone). */
static void files_add_thread(html_files *hf, const ip_session *s, const ip_thread *t) {
  ip_tree_view v = {t->nodes, t->n_nodes, t};
  if (hf->n_threads == 1 && hf->spool) {
    ip_tree_view first = {hf->merged.nodes, hf->merged.n, NULL};
    spool_thread(hf, hf->first_label, &first, walk_first);
  }
  ip_tree_merger_add(&hf->merged, &v);
  ip_line_hits_add(&hf->hits, s, t, NULL);
  char label[96];
  ip_thread_label(t, label, sizeof label);
  if (!hf->n_threads++)
    snprintf(hf->first_label, sizeof hf->first_label, "%s", label);
  else if (hf->spool)
    spool_thread(hf, label, &v, ip_tree_walk);
}

static html_files *files_new(void) {
  html_files *hf = ip_must_calloc(1, sizeof *hf);
  ip_tree_merger_init(&hf->merged);
  hf->spool = ip_temp_stream(); /* NULL: put_trees says so */
  return hf;
}

static void files_free(html_files *hf) {
  ip_export_trees trees;
  ip_tree_merger_finish(&hf->merged, &trees);
  ip_export_trees_free(&trees);
  free(hf->hits.v);
  if (hf->spool)
    fclose(hf->spool);
  free(hf->rows.v);
  free(hf);
}

/* Written file by file: each selected thread's part taken as its file is read. */
static void html_file(void *ctx, ip_session *s, size_t first_thread) {
  ip_export_job *job = ctx;
  if (!job->by_file)
    job->by_file = files_new();
  for (size_t i = first_thread; i < s->n_threads; i++)
    if (ip_selected_thread(s, &job->opts->sel, &s->threads[i]))
      files_add_thread(job->by_file, s, &s->threads[i]);
}

static void html_discard(ip_export_job *job) {
  if (job->by_file)
    files_free(job->by_file);
  job->by_file = NULL;
}

/* "trees": the merged tree, then each thread's when there are several.
 * Returns 0, or -1 after a message when the spool could not be read back. */
static int put_trees(html *x, html_files *hf, const char *out_name) {
  ip_export_trees merged;
  ip_tree_merger_finish(&hf->merged, &merged);
  fputs(",\"trees\":[", x->out);
  for (size_t i = 0; i < merged.n_views; i++) {
    uint64_t excl[N_COLUMNS];
    hf->rows.n = 0;
    ip_tree_walk(&merged.views[i], take_row, &hf->rows);
    root_values(&merged.views[i], excl);
    put_tree(x, "all threads", hf->rows.v, hf->rows.n, excl);
  }
  ip_export_trees_free(&merged);
  ip_tree_merger_init(&hf->merged);
  int ok = hf->n_threads < 2 || (hf->spool && !fflush(hf->spool) && !fseek(hf->spool, 0, SEEK_SET));
  for (size_t i = 0; ok && hf->n_threads > 1 && i < hf->n_threads; i++) {
    char label[96];
    uint64_t n, excl[N_COLUMNS];
    ok = fread(label, sizeof label, 1, hf->spool) == 1 && fread(&n, sizeof n, 1, hf->spool) == 1;
    if (ok) {
      hf->rows.n = 0;
      rows_room(&hf->rows, (size_t)n);
      ok = fread(hf->rows.v, sizeof *hf->rows.v, n, hf->spool) == n &&
           fread(excl, sizeof excl, 1, hf->spool) == 1;
    }
    if (ok) {
      label[sizeof label - 1] = 0;
      fputs(",\n", x->out);
      put_tree(x, label, hf->rows.v, (size_t)n, excl);
    }
  }
  fputs("]", x->out);
  if (!ok)
    fprintf(stderr,
            "inclprof export: %s: the threads' call trees could not be kept in a temporary "
            "file (set TMPDIR to a writable directory with room)\n",
            out_name);
  return ok ? 0 : -1;
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
static void put_lines(html *x, ip_line_hits *hits) {
  if (!ip_session_sampled(x->s))
    return;
  ip_sample_lines where;
  ip_line_rows rows;
  ip_sample_lines_init(&where, x->s);
  ip_line_rows_from_hits(x->s, hits, 0, ip_sample_lines_locate, &where, &rows);
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
  html_files *hf = job->by_file;
  if (!hf) { /* read whole: every selected thread taken now */
    hf = files_new();
    for (size_t i = 0; i < s->n_threads; i++)
      if (ip_selected_thread(s, &job->opts->sel, &s->threads[i]))
        files_add_thread(hf, s, &s->threads[i]);
  }
  job->by_file = NULL;
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
  int rc = put_trees(&x, hf, job->out_name); /* names are numbered as the trees use them */
  put_names(&x);
  put_modules(&x);
  put_lines(&x, &hf->hits);
  fputs("}\n", job->out);
  ip_html_page_tail(job->out);
  free(x.name_of);
  free(x.funcs);
  files_free(hf);
  return rc;
}

const ip_exporter ip_exporter_html = {
    .name = "html",
    .readers = "a web browser",
    .default_output = "inclprof.html",
    .options = 0,
    .critical = 1,
    .write = write_html,
    .file_done = html_file,
    .files_discard = html_discard,
};
