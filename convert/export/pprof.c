/* export/pprof.c - pprof export: builds one Profile message (functions,
 * locations and mappings created as the call paths use them), packs it with
 * protobuf-c and gzips it with zlib.  Memory is bounded by the call paths. */
#include "export/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/util.h"
#include "export/strtab.h"
#include "export/tree.h"
#include "profile.pb-c.h"
#include "version.h"

enum { MAX_TYPES = 9, N_LABELS = 4 };

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

/* One view's labels (shared by all its samples). */
typedef struct view_labels {
  InclprofPprof__Label labels[N_LABELS];
  InclprofPprof__Label *ptrs[N_LABELS];
  size_t n;
} view_labels;

typedef struct builder {
  const ip_session *s;
  ip_strtab strings;
  value_kind kinds[MAX_TYPES];
  size_t n_kinds;
  uint64_t *loc_of_func;       /* location id (= function id) per session func, 0 = none yet */
  uint64_t *mapping_of_module; /* mapping id per module, 0 = none yet */
  InclprofPprof__Function *functions;
  InclprofPprof__Location *locations;
  InclprofPprof__Line *lines;
  InclprofPprof__Line **line_ptrs;
  size_t n_functions;
  InclprofPprof__Mapping *mappings;
  size_t n_mappings;
  InclprofPprof__Sample *samples;
  size_t n_samples, cap_samples;
  view_labels *labels; /* of the view being walked, NULL when merged */
  InclprofPprof__ValueType types[MAX_TYPES];
  InclprofPprof__ValueType *type_ptrs[MAX_TYPES];
  int64_t comments[2];
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
  if (!b->mapping_of_module[module]) {
    InclprofPprof__Mapping *m = &b->mappings[b->n_mappings];
    inclprof_pprof__mapping__init(m);
    m->id = ++b->n_mappings;
    m->filename = ip_strtab_intern(&b->strings, b->s->modules[module].path);
    m->has_functions = 1;
    m->has_filenames = 1;
    b->mapping_of_module[module] = m->id;
  }
  return b->mapping_of_module[module];
}

/* The location of session function f: one line, naming function f. */
static uint64_t location_id(builder *b, uint32_t f) {
  if (b->loc_of_func[f])
    return b->loc_of_func[f];
  const ip_func *src = &b->s->funcs[f];
  size_t k = b->n_functions++;
  InclprofPprof__Function *fn = &b->functions[k];
  inclprof_pprof__function__init(fn);
  fn->id = k + 1;
  fn->name = ip_strtab_intern(&b->strings, src->pretty && *src->pretty ? src->pretty : src->name);
  fn->system_name = ip_strtab_intern(&b->strings, src->name);
  fn->filename = ip_strtab_intern(&b->strings, src->file);
  fn->start_line = src->line;
  InclprofPprof__Line *line = &b->lines[k];
  inclprof_pprof__line__init(line);
  line->function_id = fn->id;
  line->line = src->line;
  b->line_ptrs[k] = line;
  InclprofPprof__Location *loc = &b->locations[k];
  inclprof_pprof__location__init(loc);
  loc->id = fn->id;
  loc->mapping_id = mapping_id(b, src->module);
  loc->n_line = 1;
  loc->line = &b->line_ptrs[k];
  return b->loc_of_func[f] = loc->id;
}

static InclprofPprof__Sample *new_sample(builder *b, const ip_values *v) {
  if (b->n_samples == b->cap_samples)
    b->samples = ip_must_realloc(
        b->samples, b->cap_samples = b->cap_samples ? 2 * b->cap_samples : 256, sizeof *b->samples);
  InclprofPprof__Sample *smp = &b->samples[b->n_samples++];
  inclprof_pprof__sample__init(smp);
  smp->n_value = b->n_kinds;
  smp->value = ip_must_realloc(NULL, b->n_kinds, sizeof *smp->value);
  for (size_t i = 0; i < b->n_kinds; i++)
    smp->value[i] = kind_value(b->kinds[i], v);
  if (b->labels) {
    smp->n_label = b->labels->n;
    smp->label = b->labels->ptrs;
  }
  return smp;
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
  InclprofPprof__Sample *smp = new_sample(b, &leaf->v);
  smp->n_location_id = depth;
  smp->location_id = ip_must_realloc(NULL, depth, sizeof *smp->location_id);
  for (size_t d = 0; d < depth; d++)
    smp->location_id[depth - 1 - d] = location_id(b, v->nodes[path[d]].func);
}

static void set_label(builder *b, view_labels *l, const char *key, const char *str, int64_t num) {
  InclprofPprof__Label *x = &l->labels[l->n];
  inclprof_pprof__label__init(x);
  x->key = ip_strtab_intern(&b->strings, key);
  if (str)
    x->str = ip_strtab_intern(&b->strings, str);
  else
    x->num = num;
  l->ptrs[l->n++] = x;
}

static void thread_labels(builder *b, view_labels *l, const ip_thread *t) {
  const ip_process *p = t->process < b->s->n_processes ? &b->s->processes[t->process] : NULL;
  l->n = 0;
  if (p) {
    const char *exe = p->executable ? p->executable : "";
    const char *slash = strrchr(exe, '/');
    set_label(b, l, "process", slash ? slash + 1 : exe, 0);
    set_label(b, l, "pid", NULL, p->pid);
  }
  if (t->name && *t->name)
    set_label(b, l, "thread", t->name, 0);
  set_label(b, l, "tid", NULL, t->tid);
}

static void add_view(builder *b, const ip_tree_view *v, view_labels *labels) {
  b->labels = NULL;
  if (v->thread) {
    thread_labels(b, labels, v->thread);
    b->labels = labels;
  }
  /* Time with no function on the stack: a sample without locations, so
   * pprof's total matches the threads' total. */
  if (v->n_nodes && has_value(b, &v->nodes[0].v))
    new_sample(b, &v->nodes[0].v);
  ip_tree_walk(v, add_path, b);
}

static int write_gzip(const uint8_t *data, size_t len, FILE *out, const char *out_name) {
  z_stream z;
  uint8_t chunk[65536] = {0};
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    fprintf(stderr, "inclprof export: %s: zlib could not start compressing\n", out_name);
    return -1;
  }
  int rc = Z_OK;
  size_t left = len;
  while (rc != Z_STREAM_END) {
    uInt step = left > (1u << 30) ? (1u << 30) : (uInt)left;
    z.next_in = (Bytef *)(uintptr_t)(data + (len - left));
    z.avail_in = step;
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    rc = deflate(&z, step == left ? Z_FINISH : Z_NO_FLUSH);
    left -= step - z.avail_in;
    size_t produced = sizeof chunk - z.avail_out;
    if (rc == Z_STREAM_ERROR || fwrite(chunk, 1, produced, out) != produced) {
      deflateEnd(&z);
      fprintf(stderr, "inclprof export: %s: write failed: %s\n", out_name, strerror(errno));
      return -1;
    }
  }
  deflateEnd(&z);
  return 0;
}

/* Profile-wide fields: types, times, comments. */
static void fill_header(builder *b, InclprofPprof__Profile *p) {
  for (size_t i = 0; i < b->n_kinds; i++) {
    inclprof_pprof__value_type__init(&b->types[i]);
    b->types[i].type = ip_strtab_intern(&b->strings, kind_type(b->kinds[i]));
    b->types[i].unit = ip_strtab_intern(&b->strings, kind_unit(b->kinds[i]));
    b->type_ptrs[i] = &b->types[i];
  }
  p->n_sample_type = b->n_kinds;
  p->sample_type = b->type_ptrs;
  p->default_sample_type = b->types[b->n_kinds - 1].type;
  uint64_t start = 0, end = 0;
  for (size_t i = 0; i < b->s->n_processes; i++)
    if (!start || (b->s->processes[i].start_unix_ns && b->s->processes[i].start_unix_ns < start))
      start = b->s->processes[i].start_unix_ns;
  for (size_t i = 0; i < b->s->n_threads; i++)
    if (b->s->threads[i].end_ns > end)
      end = b->s->threads[i].end_ns;
  p->time_nanos = (int64_t)start;
  p->duration_nanos = (int64_t)end;
  b->comments[0] = ip_strtab_intern(&b->strings, "inclprof " INCLPROF_VERSION);
  b->comments[1] = ip_strtab_intern(
      &b->strings, b->s->compensated ? "times exclude probe cost and runtime gaps"
                                     : "raw times: probe cost and runtime gaps included");
  p->n_comment = 2;
  p->comment = b->comments;
}

int ip_export_pprof(const ip_session *s, const ip_export_opts *o, FILE *out, const char *out_name) {
  builder b = {.s = s};
  ip_strtab_init(&b.strings);
  choose_types(&b, o);
  size_t nf = s->n_funcs ? s->n_funcs : 1;
  b.loc_of_func = ip_must_calloc(nf, sizeof *b.loc_of_func);
  b.functions = ip_must_calloc(nf, sizeof *b.functions);
  b.locations = ip_must_calloc(nf, sizeof *b.locations);
  b.lines = ip_must_calloc(nf, sizeof *b.lines);
  b.line_ptrs = ip_must_calloc(nf, sizeof *b.line_ptrs);
  b.mapping_of_module = ip_must_calloc(s->n_modules, sizeof *b.mapping_of_module);
  b.mappings = ip_must_calloc(s->n_modules, sizeof *b.mappings);

  ip_export_trees trees;
  ip_export_trees_build(&trees, s, o->merge_threads, &o->sel);
  view_labels *labels = ip_must_calloc(trees.n_views, sizeof *labels);
  for (size_t i = 0; i < trees.n_views; i++)
    add_view(&b, &trees.views[i], &labels[i]);

  InclprofPprof__Profile p = INCLPROF_PPROF__PROFILE__INIT;
  fill_header(&b, &p);
  InclprofPprof__Sample **sample_ptrs = ip_must_calloc(b.n_samples, sizeof *sample_ptrs);
  InclprofPprof__Function **function_ptrs = ip_must_calloc(b.n_functions, sizeof *function_ptrs);
  InclprofPprof__Location **location_ptrs = ip_must_calloc(b.n_functions, sizeof *location_ptrs);
  InclprofPprof__Mapping **mapping_ptrs = ip_must_calloc(b.n_mappings, sizeof *mapping_ptrs);
  for (size_t i = 0; i < b.n_samples; i++)
    sample_ptrs[i] = &b.samples[i];
  for (size_t i = 0; i < b.n_functions; i++) {
    function_ptrs[i] = &b.functions[i];
    location_ptrs[i] = &b.locations[i];
  }
  for (size_t i = 0; i < b.n_mappings; i++)
    mapping_ptrs[i] = &b.mappings[i];
  p.n_sample = b.n_samples;
  p.sample = sample_ptrs;
  p.n_function = p.n_location = b.n_functions;
  p.function = function_ptrs;
  p.location = location_ptrs;
  p.n_mapping = b.n_mappings;
  p.mapping = mapping_ptrs;
  p.n_string_table = b.strings.n;
  p.string_table = b.strings.strs;

  size_t len = inclprof_pprof__profile__get_packed_size(&p);
  uint8_t *buf = ip_must_realloc(NULL, len, 1);
  inclprof_pprof__profile__pack(&p, buf);
  int rc = write_gzip(buf, len, out, out_name);

  free(buf);
  free(sample_ptrs);
  free(function_ptrs);
  free(location_ptrs);
  free(mapping_ptrs);
  for (size_t i = 0; i < b.n_samples; i++) {
    free(b.samples[i].value);
    free(b.samples[i].location_id);
  }
  free(b.samples);
  free(labels);
  ip_export_trees_free(&trees);
  free(b.loc_of_func);
  free(b.functions);
  free(b.locations);
  free(b.lines);
  free(b.line_ptrs);
  free(b.mapping_of_module);
  free(b.mappings);
  ip_strtab_free(&b.strings);
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
