/* export/folded.c - folded stacks, one line per call path with a value. */
#include "export/folded.h"

#include <inttypes.h>

#include "export/tree.h"

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

void ip_export_folded(const ip_session *s, const ip_export_opts *o, FILE *out) {
  ip_export_trees trees;
  folded x = {.s = s, .value = o->value, .out = out};
  ip_export_trees_build(&trees, s, o->merge_threads, &o->sel);
  for (size_t i = 0; i < trees.n_views; i++) {
    const ip_tree_view *v = &trees.views[i];
    x.prefix[0] = 0;
    if (v->thread)
      ip_thread_label(v->thread, x.prefix, sizeof x.prefix);
    uint64_t outside = v->n_nodes ? value_of(x.value, &v->nodes[0].v) : 0;
    if (outside)
      put_line(&x, v, NULL, 0, outside);
    ip_tree_walk(v, fold_path, &x);
  }
  ip_export_trees_free(&trees);
}

/* `inclprof export --format folded` */
static int write_folded(ip_export_job *job, const ip_session *s) {
  ip_export_folded(s, job->opts, job->out);
  return 0; /* a write error shows when the file is closed */
}

const ip_exporter ip_exporter_folded = {
    .name = "folded",
    .readers = "flame graphs",
    .default_output = "inclprof.folded",
    .options = IP_EXOPT_MERGE_THREADS | IP_EXOPT_VALUE,
    .write = write_folded,
};
