/* export/pprof.c - pprof export: one profile (export/pprof_builder.h) of a
 * sample per call path, its functions, locations and mappings created as
 * the call paths use them.  Memory is bounded by the call paths. */
#include "export/pprof.h"

#include <stdlib.h>
#include <string.h>

#include "export/pprof_builder.h"
#include "export/tree.h"
#include "version.h"

enum { MAX_TYPES = 9 };

/* V_PREEMPTED.. V_FAULTS: the wait breakdown, in IP_W_* order. */
typedef enum {
  V_CALLS,
  V_ELAPSED,
  V_APPLICATION,
  V_SAMPLES,
  V_PREEMPTED,
  V_BLOCKED,
  V_SYSCALL,
  V_FAULT_TIME,
  V_FAULTS
} value_kind;

typedef struct builder {
  const ip_session *s;
  ip_pprof prof;
  value_kind kinds[MAX_TYPES];
  size_t n_kinds;
  uint64_t *loc_of_func;       /* location id per session func, 0 = none yet */
  uint64_t *mapping_of_module; /* mapping id per module, 0 = none yet */
  uint32_t labels;             /* label set of the view being walked, 0 when merged */
  uint64_t *path;              /* the location ids of one sample, leaf first */
  size_t cap_path;
  int64_t values[MAX_TYPES];
} builder;

/* Sample types in file order: the chosen one last (pprof's default when a
 * viewer ignores default_sample_type). */
static void choose_types(builder *b, const ip_export_opts *o) {
  value_kind chosen = o->value == IP_VALUE_APPLICATION ? V_APPLICATION
                      : o->value == IP_VALUE_SAMPLES   ? V_SAMPLES
                                                       : V_ELAPSED;
  const value_kind order[] = {V_CALLS,  V_PREEMPTED, V_BLOCKED,     V_SYSCALL, V_FAULT_TIME,
                              V_FAULTS, V_SAMPLES,   V_APPLICATION, V_ELAPSED};
  int sampled = ip_session_sampled(b->s), wait = ip_session_has_wait(b->s);
  b->n_kinds = 0;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    if (order[i] != chosen && (order[i] != V_SAMPLES || sampled) &&
        (order[i] < V_PREEMPTED || wait))
      b->kinds[b->n_kinds++] = order[i];
  b->kinds[b->n_kinds++] = chosen;
}

static const char *kind_type(value_kind k) {
  static const char *const names[] = {"calls",   "elapsed",          "application",
                                      "samples", "offcpu_preempted", "offcpu_blocked",
                                      "syscall", "page_fault",       "page_faults"};
  return names[k];
}

static const char *kind_unit(value_kind k) {
  return k == V_CALLS || k == V_SAMPLES || k == V_FAULTS ? "count" : "nanoseconds";
}

static int64_t kind_value(value_kind k, const ip_values *v) {
  switch (k) {
  case V_CALLS:
    return (int64_t)v->calls;
  case V_ELAPSED:
    return (int64_t)v->el_excl;
  case V_APPLICATION:
    return (int64_t)v->app_excl;
  case V_SAMPLES:
    return (int64_t)v->smp_excl;
  default:
    return (int64_t)v->wait_excl[k - V_PREEMPTED];
  }
  return 0;
}

static uint64_t mapping_id(builder *b, uint32_t module) {
  if (module >= b->s->n_modules)
    return 0;
  if (!b->mapping_of_module[module])
    b->mapping_of_module[module] = ip_pprof_mapping(&b->prof, b->s->modules[module].path);
  return b->mapping_of_module[module];
}

/* The location of session function f: one line, naming function f. */
static uint64_t location_id(builder *b, uint32_t f) {
  if (b->loc_of_func[f])
    return b->loc_of_func[f];
  const ip_func *src = &b->s->funcs[f];
  ip_pprof_line line = {ip_pprof_function(&b->prof,
                                          src->pretty && *src->pretty ? src->pretty : src->name,
                                          src->name, src->file, src->line),
                        src->line};
  return b->loc_of_func[f] = ip_pprof_location(&b->prof, mapping_id(b, src->module), 0, &line, 1);
}

/* A sample of the path's n locations (b->path) with the values of v. */
static void add_sample(builder *b, const ip_values *v, size_t n) {
  for (size_t i = 0; i < b->n_kinds; i++)
    b->values[i] = kind_value(b->kinds[i], v);
  ip_pprof_sample(&b->prof, b->path, n, b->values, b->labels);
}

static int has_value(const builder *b, const ip_values *v) {
  for (size_t i = 0; i < b->n_kinds; i++)
    if (kind_value(b->kinds[i], v))
      return 1;
  return 0;
}

static void add_path(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  builder *b = ctx;
  const ip_node *leaf = &v->nodes[path[depth - 1]];
  if (!has_value(b, &leaf->v))
    return;
  ip_must_grow((void **)&b->path, &b->cap_path, depth, sizeof *b->path);
  for (size_t d = 0; d < depth; d++)
    b->path[depth - 1 - d] = location_id(b, v->nodes[path[d]].func);
  add_sample(b, &leaf->v, depth);
}

/* The labels of a thread's samples: process, pid, thread name, tid. */
static uint32_t thread_labels(builder *b, const ip_thread *t) {
  const ip_process *p = t->process < b->s->n_processes ? &b->s->processes[t->process] : NULL;
  uint32_t set = ip_pprof_label_set(&b->prof);
  if (p) {
    const char *exe = p->executable ? p->executable : "";
    const char *slash = strrchr(exe, '/');
    ip_pprof_label_str(&b->prof, "process", slash ? slash + 1 : exe);
    ip_pprof_label_num(&b->prof, "pid", p->pid);
  }
  if (t->name && *t->name)
    ip_pprof_label_str(&b->prof, "thread", t->name);
  ip_pprof_label_num(&b->prof, "tid", t->tid);
  return set;
}

static void add_view(builder *b, const ip_tree_view *v) {
  b->labels = v->thread ? thread_labels(b, v->thread) : 0;
  /* Time with no function on the stack: a sample without locations, so
   * pprof's total matches the threads' total. */
  if (v->n_nodes && has_value(b, &v->nodes[0].v))
    add_sample(b, &v->nodes[0].v, 0);
  ip_tree_walk(v, add_path, b);
}

/* Profile-wide fields: types, times, comments. */
static void add_header(builder *b) {
  for (size_t i = 0; i < b->n_kinds; i++)
    ip_pprof_sample_type(&b->prof, kind_type(b->kinds[i]), kind_unit(b->kinds[i]));
  uint64_t start = 0, end = 0;
  for (size_t i = 0; i < b->s->n_processes; i++)
    if (!start || (b->s->processes[i].start_unix_ns && b->s->processes[i].start_unix_ns < start))
      start = b->s->processes[i].start_unix_ns;
  for (size_t i = 0; i < b->s->n_threads; i++)
    if (b->s->threads[i].end_ns > end)
      end = b->s->threads[i].end_ns;
  ip_pprof_times(&b->prof, (int64_t)start, (int64_t)end);
  ip_pprof_comment(&b->prof, "inclprof " INCLPROF_VERSION);
  ip_pprof_comment(&b->prof, b->s->compensated ? "times exclude probe cost and runtime gaps"
                                               : "raw times: probe cost and runtime gaps included");
}

int ip_export_pprof(const ip_session *s, const ip_export_opts *o, FILE *out, const char *out_name) {
  builder b = {.s = s};
  ip_pprof_init(&b.prof);
  choose_types(&b, o);
  add_header(&b);
  b.loc_of_func = ip_must_calloc(s->n_funcs ? s->n_funcs : 1, sizeof *b.loc_of_func);
  b.mapping_of_module =
      ip_must_calloc(s->n_modules ? s->n_modules : 1, sizeof *b.mapping_of_module);
  ip_export_trees trees;
  ip_export_trees_build(&trees, s, o->merge_threads, &o->sel);
  for (size_t i = 0; i < trees.n_views; i++)
    add_view(&b, &trees.views[i]);
  int rc = ip_pprof_write(&b.prof, out, "export", out_name);
  ip_export_trees_free(&trees);
  free(b.loc_of_func);
  free(b.mapping_of_module);
  free(b.path);
  ip_pprof_free(&b.prof);
  return rc;
}

/* `inclprof export --format pprof` */
static int write_pprof(ip_export_job *job, const ip_session *s) {
  return ip_export_pprof(s, job->opts, job->out, job->out_name);
}

const ip_exporter ip_exporter_pprof = {
    .name = "pprof",
    .readers = "go tool pprof",
    .default_output = "inclprof.pb.gz",
    .options = IP_EXOPT_MERGE_THREADS | IP_EXOPT_VALUE,
    .write = write_pprof,
};
