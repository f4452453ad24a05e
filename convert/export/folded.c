/* export/folded.c - folded stacks, one line per call path with a value. */
#include "export/folded.h"

#include <inttypes.h>
#include <stdlib.h>

#include "export/tree.h"
#include "util/util.h"

typedef struct folded {
  const ip_session *s;
  ip_export_value value;
  FILE *out;
  char prefix[96]; /* thread frame, "" when merged */
} folded;

static uint64_t value_of(ip_export_value k, const ip_values *v) {
  return k == IP_VALUE_APPLICATION ? v->app_excl : k == IP_VALUE_SAMPLES ? v->smp_excl : v->el_excl;
}

/* A frame name with the separators of the format neutralised. */
static void put_frame(FILE *out, const char *name) {
  for (const char *p = name; *p; p++)
    putc(*p == ';' ? ',' : *p == '\n' || *p == '\r' ? ' ' : *p, out);
}

static const char *func_name(const ip_session *s, uint32_t f) {
  if (f >= s->n_funcs)
    return "?";
  return s->funcs[f].pretty && *s->funcs[f].pretty ? s->funcs[f].pretty : s->funcs[f].name;
}

static void put_line(const folded *x, const ip_tree_view *v, const uint32_t *path, size_t depth,
                     uint64_t value) {
  const char *sep = "";
  if (*x->prefix) {
    put_frame(x->out, x->prefix);
    sep = ";";
  }
  for (size_t d = 0; d < depth; d++) {
    fputs(sep, x->out);
    put_frame(x->out, func_name(x->s, v->nodes[path[d]].func));
    sep = ";";
  }
  if (!*sep)
    fputs("(no function)", x->out);
  fprintf(x->out, " %" PRIu64 "\n", value);
}

static void fold_path(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  const folded *x = ctx;
  uint64_t value = value_of(x->value, &v->nodes[path[depth - 1]].v);
  if (value)
    put_line(x, v, path, depth, value);
}

/* The lines of view v (a thread's tree, or the merged tree). */
static void put_view(folded *x, const ip_tree_view *v) {
  x->prefix[0] = 0;
  if (v->thread)
    ip_thread_label(v->thread, x->prefix, sizeof x->prefix);
  uint64_t outside = v->n_nodes ? value_of(x->value, &v->nodes[0].v) : 0;
  if (outside)
    put_line(x, v, NULL, 0, outside);
  ip_tree_walk(v, fold_path, x);
}

void ip_export_folded(const ip_session *s, const ip_export_opts *o, FILE *out) {
  ip_export_trees trees;
  folded x = {.s = s, .value = o->value, .out = out};
  ip_export_trees_build(&trees, s, o->merge_threads, &o->sel);
  for (size_t i = 0; i < trees.n_views; i++)
    put_view(&x, &trees.views[i]);
  ip_export_trees_free(&trees);
}

/* Written file by file: each thread's lines as its file is read, or its
 * paths added to the merged tree written at the end (--merge-threads). */
typedef struct folded_files {
  ip_tree_merger merged;
} folded_files;

static void folded_file(void *ctx, ip_session *s, size_t first_thread) {
  ip_export_job *job = ctx;
  const ip_export_opts *o = job->opts;
  folded_files *ff = job->by_file;
  if (!ff) {
    ff = job->by_file = ip_must_calloc(1, sizeof *ff);
    ip_tree_merger_init(&ff->merged);
  }
  folded x = {.s = s, .value = o->value, .out = job->out};
  for (size_t i = first_thread; i < s->n_threads; i++) {
    const ip_thread *t = &s->threads[i];
    if (!ip_selected_thread(s, &o->sel, t))
      continue;
    ip_tree_view v = {t->nodes, t->n_nodes, t};
    if (o->merge_threads)
      ip_tree_merger_add(&ff->merged, &v);
    else
      put_view(&x, &v);
  }
}

static void folded_discard(ip_export_job *job) {
  folded_files *ff = job->by_file;
  if (!ff)
    return;
  ip_export_trees trees;
  ip_tree_merger_finish(&ff->merged, &trees);
  ip_export_trees_free(&trees);
  free(ff);
  job->by_file = NULL;
}

/* `inclprof export --format folded` */
static int write_folded(ip_export_job *job, const ip_session *s) {
  folded_files *ff = job->by_file;
  if (!ff) { /* read whole (or no file read) */
    ip_export_folded(s, job->opts, job->out);
    return 0;
  }
  if (job->opts->merge_threads) {
    ip_export_trees trees;
    ip_tree_merger_finish(&ff->merged, &trees);
    folded x = {.s = s, .value = job->opts->value, .out = job->out};
    for (size_t i = 0; i < trees.n_views; i++)
      put_view(&x, &trees.views[i]);
    ip_export_trees_free(&trees);
  }
  folded_discard(job);
  return 0; /* a write error shows when the file is closed */
}

const ip_exporter ip_exporter_folded = {
    .name = "folded",
    .readers = "flame graphs",
    .default_output = "inclprof.folded",
    .options = IP_EXOPT_MERGE_THREADS | IP_EXOPT_VALUE,
    .write = write_folded,
    .file_done = folded_file,
    .files_discard = folded_discard,
};
