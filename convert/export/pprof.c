/* export/pprof.c - pprof export: one profile (export/pprof_builder.h) of a
 * sample per call path, its functions, locations and mappings created as
 * the call paths use them.  Memory is bounded by the call paths and the
 * distinct sampled addresses.
 *
 * Lines: the samples that know their instruction address become samples of
 * their own, leaf first the address's location (its source line and the
 * functions inlined there, innermost first), then the instrumented callers;
 * the call path's sample keeps the values they leave (its other samples,
 * every time and call).  A call path whose function was called with
 * call-site probes is one sample per call line, its caller's location at
 * that line, the values shared by the line's calls and time. */
#include "export/pprof.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/pprof_builder.h"
#include "export/sample_lines.h"
#include "export/tree.h"
#include "export/tree_spool.h"
#include "version.h"

enum { MAX_TYPES = 10 };

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
  V_FAULTS,
  V_CRITICAL /* the critical path's time (Critical Exclusive) */
} value_kind;

/* The calls of one call path made on one call line (or on none). */
typedef struct site_part {
  uint32_t node, site; /* view node; site: index into ip_session.sites, UINT32_MAX: no line */
  uint64_t calls, el, app;
} site_part;

typedef struct builder {
  const ip_session *s;
  ip_pprof prof;
  value_kind kinds[MAX_TYPES];
  size_t n_kinds;
  uint64_t *fn_of_func;  /* function id per session func, 0 = none yet */
  uint64_t *loc_of_func; /* location id per session func, 0 = none yet */
  size_t cap_fn_of_func, cap_loc_of_func, cap_mapping_of_module;
  ip_strtab inlined_keys;  /* "NAME\nFILE" of the functions known from debug info only */
  uint64_t *fn_of_inlined; /* their function ids, by index in inlined_keys */
  size_t cap_fn_of_inlined;
  ip_sample_lines where;      /* the sampled addresses, located */
  uint64_t *loc_of_addr;      /* location id per entry of where.locs, 0 = none yet */
  uint32_t *loc_of_addr_func; /* the session func it was made for */
  size_t cap_loc_of_addr, cap_loc_of_addr_func;
  ip_u64map loc_of_line; /* func << 32 | line -> location id of a call line */
  uint64_t *known;       /* per node of the view: its samples with a known address */
  site_part *parts;      /* the view's call paths with call lines, by node */
  size_t n_parts, cap_parts;
  uint64_t *mapping_of_module; /* mapping id per module, 0 = none yet */
  uint32_t labels;             /* label set of the view being walked, 0 when merged */
  uint64_t *path;              /* the location ids of one sample, leaf first */
  size_t cap_path;
  int64_t values[MAX_TYPES];
  int counting;           /* the sizing pass: samples counted by depth, none written */
  uint64_t *depth_count;  /* sizing pass: samples per number of locations */
  size_t cap_depth_count; /* (and the highest number + 1) */
  size_t max_depth;       /* 0: whole call paths; else the innermost max_depth frames */
  uint64_t cut_location;  /* the location standing for the frames left out, 0 = none yet */
  uint64_t cut_samples;   /* samples whose outer frames were left out */
  ip_u64map cut_paths;    /* hash of a cut sample's locations and labels -> its sample */
} builder;

/* pprof holds every location of every sample in memory: go tool pprof
 * -raw peaks at about 32 times the profile's uncompressed size
 * (docs/converter.md), so by default a profile stays under 16 MiB, within
 * about 600 MB for pprof. */
enum { DEFAULT_MAX_SIZE = 16u << 20 };
#define CUT_NAME "[outer frames left out]"

/* Sample types in file order: the chosen one last (pprof's default when a
 * viewer ignores default_sample_type). */
static void choose_types(builder *b, const ip_export_opts *o) {
  value_kind chosen = o->value == IP_VALUE_APPLICATION ? V_APPLICATION
                      : o->value == IP_VALUE_SAMPLES   ? V_SAMPLES
                                                       : V_ELAPSED;
  const value_kind order[] = {V_CALLS,  V_PREEMPTED, V_BLOCKED, V_SYSCALL,     V_FAULT_TIME,
                              V_FAULTS, V_CRITICAL,  V_SAMPLES, V_APPLICATION, V_ELAPSED};
  int sampled = ip_session_sampled(b->s), wait = ip_session_has_wait(b->s);
  int critical = ip_session_has_critical(b->s);
  b->n_kinds = 0;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    if (order[i] != chosen && (order[i] != V_SAMPLES || sampled) &&
        (order[i] < V_PREEMPTED || order[i] > V_FAULTS || wait) &&
        (order[i] != V_CRITICAL || critical))
      b->kinds[b->n_kinds++] = order[i];
  b->kinds[b->n_kinds++] = chosen;
}

static const char *kind_type(value_kind k) {
  static const char *const names[] = {
      "calls",          "elapsed", "application", "samples",     "offcpu_preempted",
      "offcpu_blocked", "syscall", "page_fault",  "page_faults", "critical"};
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
  case V_CRITICAL:
    return (int64_t)v->crit_excl;
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

static uint64_t function_id(builder *b, uint32_t f) {
  if (!b->fn_of_func[f]) {
    const ip_func *src = &b->s->funcs[f];
    b->fn_of_func[f] =
        ip_pprof_function(&b->prof, src->pretty && *src->pretty ? src->pretty : src->name,
                          src->name, src->file, src->line);
  }
  return b->fn_of_func[f];
}

/* The location of session function f: one line, naming function f. */
static uint64_t location_id(builder *b, uint32_t f) {
  if (b->loc_of_func[f])
    return b->loc_of_func[f];
  const ip_func *src = &b->s->funcs[f];
  ip_pprof_line line = {function_id(b, f), src->line};
  return b->loc_of_func[f] = ip_pprof_location(&b->prof, mapping_id(b, src->module), 0, &line, 1);
}

/* The location of session function f at call line `line`. */
static uint64_t call_line_location(builder *b, uint32_t f, uint32_t line) {
  uint64_t key = (uint64_t)f << 32 | line;
  uint32_t id = ip_u64map_get(&b->loc_of_line, key);
  if (id != UINT32_MAX)
    return id;
  ip_pprof_line l = {function_id(b, f), line};
  id = (uint32_t)ip_pprof_location(&b->prof, mapping_id(b, b->s->funcs[f].module), 0, &l, 1);
  ip_u64map_put(&b->loc_of_line, key, id);
  return id;
}

/* A function known only from the debug info (an inlined one): one per
 * name and file. */
static uint64_t debug_function(builder *b, const ip_src_frame *fr) {
  char key[sizeof fr->func + sizeof fr->file + 1];
  snprintf(key, sizeof key, "%s\n%s", fr->func, fr->file);
  uint32_t k = ip_strtab_intern(&b->inlined_keys, key);
  size_t old = b->cap_fn_of_inlined;
  ip_must_grow((void **)&b->fn_of_inlined, &b->cap_fn_of_inlined, (size_t)k + 1,
               sizeof *b->fn_of_inlined);
  memset(b->fn_of_inlined + old, 0, (b->cap_fn_of_inlined - old) * sizeof *b->fn_of_inlined);
  if (!b->fn_of_inlined[k])
    b->fn_of_inlined[k] = ip_pprof_function(&b->prof, fr->func, fr->func, fr->file, fr->start_line);
  return b->fn_of_inlined[k];
}

/* The location of located address k (b->where.locs[k]) in a sample of
 * session function f: its lines innermost first, the outermost naming f.
 * 0 when the debug info does not put the address in f's code (nothing known
 * there, or a callee without probes): the sample then stays its path's, so
 * every function keeps exactly its Exclusive samples. */
static uint64_t address_location(builder *b, size_t k, uint32_t f) {
  const ip_src_loc *w = &b->where.locs[k];
  if (!ip_sample_in_func(w, &b->s->funcs[f]))
    return 0;
  size_t old = b->cap_loc_of_addr;
  ip_must_grow((void **)&b->loc_of_addr, &b->cap_loc_of_addr, k + 1, sizeof *b->loc_of_addr);
  memset(b->loc_of_addr + old, 0, (b->cap_loc_of_addr - old) * sizeof *b->loc_of_addr);
  ip_must_grow((void **)&b->loc_of_addr_func, &b->cap_loc_of_addr_func, k + 1,
               sizeof *b->loc_of_addr_func);
  if (b->loc_of_addr[k] && b->loc_of_addr_func[k] == f)
    return b->loc_of_addr[k];
  ip_pprof_line lines[IP_SRC_DEPTH] = {{0}};
  for (size_t i = 0; i < w->n_frames; i++) {
    lines[i].function = i + 1 == w->n_frames ? function_id(b, f) : debug_function(b, &w->frame[i]);
    lines[i].line = w->frame[i].line;
  }
  b->loc_of_addr_func[k] = f;
  return b->loc_of_addr[k] =
             ip_pprof_location(&b->prof, mapping_id(b, w->module), w->offset, lines, w->n_frames);
}

static void fill_values(builder *b, const ip_values *v) {
  for (size_t i = 0; i < b->n_kinds; i++)
    b->values[i] = kind_value(b->kinds[i], v);
}

/* The sample of b->path's n locations (leaf first) and b->values: counted
 * in the sizing pass; else written, its outer frames past max_depth left
 * out (one location stands for them), so that its leaf and flat values
 * stay. */
static void emit(builder *b, size_t n) {
  if (b->counting) {
    size_t old = b->cap_depth_count;
    ip_must_grow((void **)&b->depth_count, &b->cap_depth_count, n + 1, sizeof *b->depth_count);
    memset(b->depth_count + old, 0, (b->cap_depth_count - old) * sizeof *b->depth_count);
    b->depth_count[n]++;
    return;
  }
  if (!b->max_depth || n <= b->max_depth) {
    ip_pprof_sample(&b->prof, b->path, n, b->values, b->labels);
    return;
  }
  if (!b->cut_location) {
    ip_pprof_line line = {ip_pprof_function(&b->prof, CUT_NAME, CUT_NAME, NULL, 0), 0};
    b->cut_location = ip_pprof_location(&b->prof, 0, 0, &line, 1);
  }
  b->path[b->max_depth] = b->cut_location;
  n = b->max_depth + 1;
  b->cut_samples++;
  /* paths cut to the same innermost frames are one sample */
  uint64_t h = 0xcbf29ce484222325ULL ^ b->labels;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b->path[i]) * 0x100000001b3ULL;
  uint32_t k = ip_u64map_get(&b->cut_paths, h);
  ip_pprof *p = &b->prof;
  if (k != UINT32_MAX && p->sample_set[k] == b->labels &&
      !memcmp(p->sample_locations + p->sample_first_location[k], b->path, n * sizeof *b->path)) {
    for (size_t i = 0; i < b->n_kinds; i++)
      p->values[k * p->n_types + i] += b->values[i];
    return;
  }
  if (k == UINT32_MAX && p->n_samples < UINT32_MAX)
    ip_u64map_put(&b->cut_paths, h, (uint32_t)p->n_samples);
  ip_pprof_sample(p, b->path, n, b->values, b->labels);
}

/* A sample of the path's n locations (b->path) with the values of v. */
static void add_sample(builder *b, const ip_values *v, size_t n) {
  if (!b->counting) /* the sizing pass counts, whatever the values */
    fill_values(b, v);
  emit(b, n);
}

static int has_value(const builder *b, const ip_values *v) {
  for (size_t i = 0; i < b->n_kinds; i++)
    if (kind_value(b->kinds[i], v))
      return 1;
  return 0;
}

/* A part's weight in the shares of value kind k: its calls, its Application
 * or its Elapsed time (1 each when the kind's weights are all 0). */
static uint64_t part_weight(value_kind k, const site_part *p, int flat) {
  return flat ? 1 : k == V_CALLS ? p->calls : k == V_APPLICATION ? p->app : p->el;
}

static int cmp_part(const void *a, const void *b) {
  const site_part *x = a, *y = b;
  if (x->node != y->node)
    return x->node < y->node ? -1 : 1;
  return (x->site > y->site) - (x->site < y->site);
}

/* The call-line parts of view node `node` (sorted by node), into *n. */
static const site_part *parts_of(const builder *b, uint32_t node, size_t *n) {
  site_part key = {.node = node};
  size_t lo = 0, hi = b->n_parts;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (b->parts[mid].node < key.node)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < b->n_parts && b->parts[end].node == node)
    end++;
  *n = end - lo;
  return b->parts + lo;
}

/* The path's sample, one per call line when the leaf was called on known
 * lines: the caller's location (b->path[1]) at that line. */
static void add_call_lines(builder *b, const ip_values *v, size_t depth, uint32_t caller,
                           const site_part *p, size_t n) {
  fill_values(b, v);
  int64_t whole[MAX_TYPES];
  memcpy(whole, b->values, sizeof whole);
  uint64_t all[MAX_TYPES] = {0}, before[MAX_TYPES] = {0};
  int flat[MAX_TYPES];
  for (size_t i = 0; i < b->n_kinds; i++) {
    for (size_t j = 0; j < n; j++)
      all[i] += part_weight(b->kinds[i], &p[j], 0);
    flat[i] = !all[i];
    all[i] = flat[i] ? n : all[i];
  }
  for (size_t j = 0; j < n; j++) {
    int any = 0;
    for (size_t i = 0; i < b->n_kinds; i++) {
      uint64_t w = part_weight(b->kinds[i], &p[j], flat[i]);
      b->values[i] = (int64_t)ip_share((uint64_t)whole[i], before[i], w, all[i]);
      before[i] += w;
      any |= b->values[i] != 0;
    }
    if (!any)
      continue;
    const ip_site *site = p[j].site == UINT32_MAX ? NULL : &b->s->sites[p[j].site];
    const char *file = b->s->funcs[caller].file;
    /* a call line in another file (code inlined into the caller) is not one of its lines */
    b->path[1] = site && file && !strcmp(site->file, file)
                     ? call_line_location(b, caller, site->line)
                     : location_id(b, caller);
    emit(b, depth);
  }
}

static void add_path(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  builder *b = ctx;
  uint32_t node = path[depth - 1];
  ip_values leaf = v->nodes[node].v;
  leaf.smp_excl -= b->known ? b->known[node] : 0; /* given to the address samples */
  if (!has_value(b, &leaf))
    return;
  ip_must_grow((void **)&b->path, &b->cap_path, depth, sizeof *b->path);
  /* leaf first; only the frames a sample keeps (none when sizing) */
  size_t fill = b->counting                                ? 0
                : b->max_depth && depth > b->max_depth + 1 ? b->max_depth + 1
                                                           : depth;
  for (size_t i = 0; i < fill; i++)
    b->path[i] = location_id(b, v->nodes[path[depth - 1 - i]].func);
  size_t n = 0;
  const site_part *p = depth > 1 ? parts_of(b, node, &n) : NULL;
  if (n)
    add_call_lines(b, &leaf, depth, v->nodes[path[depth - 2]].func, p, n);
  else
    add_sample(b, &leaf, depth);
}

/* A sample of `count` samples at address pc of process `process`, on call
 * path `node` of the view whose nodes are `nodes`: leaf first the address's
 * location, then the instrumented frames; counted in b->known. */
static void address_sample(builder *b, const ip_node *nodes, uint32_t node, uint32_t process,
                           uint64_t pc, uint32_t count) {
  uint32_t f = nodes[node].func;
  uint64_t loc = address_location(b, ip_sample_lines_at(&b->where, b->s, process, pc), f);
  if (!loc)
    return;
  b->known[node] += count;
  size_t n = 0;
  ip_must_grow((void **)&b->path, &b->cap_path, n + 1, sizeof *b->path);
  b->path[n++] = loc;
  for (uint32_t x = nodes[node].parent; x && x != IP_NO_NODE; x = nodes[x].parent) {
    ip_must_grow((void **)&b->path, &b->cap_path, n + 1, sizeof *b->path);
    b->path[n++] = location_id(b, nodes[x].func);
  }
  const ip_values none = {0};
  fill_values(b, &none);
  for (size_t i = 0; i < b->n_kinds; i++)
    if (b->kinds[i] == V_SAMPLES)
      b->values[i] = count;
  emit(b, n);
}

static void add_part(site_part **parts, size_t *n, size_t *cap, site_part p) {
  ip_must_grow((void **)parts, cap, *n + 1, sizeof **parts);
  (*parts)[(*n)++] = p;
}

/* Sorts parts by node and line and sums those of one node and line; their
 * number after. */
static size_t merge_parts(site_part *parts, size_t n) {
  if (n)
    qsort(parts, n, sizeof *parts, cmp_part);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    site_part *last = m ? &parts[m - 1] : NULL;
    if (last && !cmp_part(last, &parts[i])) {
      last->calls += parts[i].calls;
      last->el += parts[i].el;
      last->app += parts[i].app;
    } else {
      parts[m++] = parts[i];
    }
  }
  return m;
}

/* Merges the parts of one node and line, and gives each node with call
 * lines a part for its calls on no known line. */
static void finish_parts(builder *b, const ip_tree_view *v) {
  if (!b->n_parts)
    return;
  size_t m = merge_parts(b->parts, b->n_parts), n = m;
  for (size_t i = 0, j; i < n; i = j) {
    site_part rest = {b->parts[i].node, UINT32_MAX, 0, 0, 0};
    const ip_values *nv = &v->nodes[rest.node].v;
    uint64_t calls = 0, el = 0, app = 0;
    for (j = i; j < n && b->parts[j].node == rest.node; j++)
      calls += b->parts[j].calls, el += b->parts[j].el, app += b->parts[j].app;
    rest.calls = nv->calls > calls ? nv->calls - calls : 0;
    rest.el = nv->el_incl > el ? nv->el_incl - el : 0;
    rest.app = nv->app_incl > app ? nv->app_incl - app : 0;
    if (rest.calls || rest.el || rest.app) {
      ip_must_grow((void **)&b->parts, &b->cap_parts, m + 1, sizeof *b->parts);
      b->parts[m++] = rest;
    }
  }
  b->n_parts = m;
  qsort(b->parts, b->n_parts, sizeof *b->parts, cmp_part);
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

/* Starts the samples of view v: its labels, no sample at a known address
 * counted yet, no call line. */
static void begin_view(builder *b, const ip_tree_view *v) {
  b->labels = v->thread && !b->counting ? thread_labels(b, v->thread) : 0;
  b->known = ip_must_calloc(v->n_nodes ? v->n_nodes : 1, sizeof *b->known);
  b->n_parts = 0;
}

/* The samples of view v's call paths, once its address samples and call
 * lines are in. */
static void end_view(builder *b, const ip_tree_view *v) {
  finish_parts(b, v);
  /* Time with no function on the stack: a sample without locations, so
   * pprof's total matches the threads' total. */
  if (v->n_nodes && has_value(b, &v->nodes[0].v))
    add_sample(b, &v->nodes[0].v, 0);
  ip_tree_walk(v, add_path, b);
  free(b->known);
  b->known = NULL;
}

/* The samples of thread t's own tree. */
static void add_thread(builder *b, const ip_thread *t) {
  ip_tree_view v = {t->nodes, t->n_nodes, t};
  begin_view(b, &v);
  for (size_t k = 0; k < t->n_pcs; k++)
    address_sample(b, t->nodes, t->pcs[k].node, t->process, t->pcs[k].pc, t->pcs[k].count);
  for (size_t k = 0; k < t->n_sites; k++) {
    const ip_site_values *sv = &t->sites[k];
    add_part(&b->parts, &b->n_parts, &b->cap_parts,
             (site_part){sv->node, sv->site, sv->calls, sv->el_incl, sv->app_incl});
  }
  end_view(b, &v);
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
  uint64_t from = 0, to;
  if (ip_session_interval_span(b->s, &from, &to)) /* the intervals', not the processes' */
    end = to;
  ip_pprof_times(&b->prof, (int64_t)(start + from), (int64_t)(end > from ? end - from : 0));
  ip_pprof_comment(&b->prof, "inclprof " INCLPROF_VERSION);
  ip_pprof_comment(&b->prof, b->s->compensated ? "times exclude probe cost and runtime gaps"
                                               : "raw times: probe cost and runtime gaps included");
}

/* Bytes of a varint of v. */
static uint64_t varint_bytes(uint64_t v) {
  uint64_t n = 1;
  while (v >>= 7)
    n++;
  return n;
}

/* The samples' size in the profile (an estimate within a few bytes per
 * sample) when each keeps at most max_depth locations (0: all), with or
 * without the four labels of its thread, and n_kinds values. */
static uint64_t samples_size(const builder *b, size_t max_depth, int labelled, size_t n_kinds) {
  uint64_t loc = varint_bytes(b->prof.n_locations + 2), size = 0;
  for (size_t n = 0; n < b->cap_depth_count; n++) {
    if (!b->depth_count[n])
      continue;
    uint64_t kept = max_depth && n > max_depth ? max_depth + 1 : n;
    uint64_t one = kept * loc + n_kinds * 4 + (labelled ? 4 * 8 : 0) + 6;
    size += b->depth_count[n] * one;
  }
  return size;
}

/* The size of the samples written so far, as samples_size estimates it. */
static uint64_t written_size(const builder *b) {
  const ip_pprof *p = &b->prof;
  uint64_t labelled = 0;
  for (size_t i = 0; i < p->n_samples; i++)
    labelled += p->sample_set[i] != 0;
  return p->n_sample_locations * varint_bytes(p->n_locations + 2) +
         p->n_samples * (b->n_kinds * 4 + 6) + labelled * 4 * 8;
}

/* The deepest number of frames a sample keeps that fits the samples in
 * limit (b->max_depth): with no depth fitting before the cut paths merge,
 * the first try is 32 frames, halved while the merged samples are still too
 * big. */
static void choose_depth(builder *b, uint64_t limit, int labelled) {
  size_t lo = 1, hi = b->cap_depth_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (samples_size(b, mid, labelled, b->n_kinds) <= limit)
      lo = mid;
    else
      hi = mid - 1;
  }
  b->max_depth = lo > 1 || samples_size(b, 1, labelled, b->n_kinds) <= limit ? lo : 32;
}

/* size as "12.3 MiB", or in bytes under 1 MiB. */
static void put_size(char *buf, size_t len, uint64_t size) {
  if (size >= 1u << 20)
    snprintf(buf, len, "%.1f MiB", (double)size / (1 << 20));
  else
    snprintf(buf, len, "%" PRIu64 " bytes", size);
}

static void say_fitted(const builder *b, uint64_t limit, int given, int merged, uint64_t whole,
                       size_t n_threads) {
  if (!merged && !b->cut_samples)
    return;
  char what[160] = "", cut[160] = "", all[32], max[32];
  put_size(all, sizeof all, whole);
  put_size(max, sizeof max, limit);
  if (merged)
    snprintf(what, sizeof what, "the call paths of the %zu threads merged (no thread labels)",
             n_threads);
  if (b->cut_samples)
    snprintf(cut, sizeof cut,
             "%s%" PRIu64
             " call paths deeper than %zu cut to their %zu innermost frames under \"" CUT_NAME "\"",
             merged ? "; " : "", b->cut_samples, b->max_depth, b->max_depth);
  fprintf(stderr,
          "inclprof export: pprof: the samples would take %s, over %s %s (go tool pprof "
          "needs about 30 times that): %s%s; everything with --max-size 0%s\n",
          all, given ? "--max-size" : "the default size limit", max, what, cut,
          merged ? "" : " or --thread/--process");
}

/* --- file by file --------------------------------------------------------
 * The profile is taken as the traces are read (ip_exporter's file_done):
 * each selected thread's samples counted by depth as its file joins the
 * session (the sizing pass, which names the locations of its samples at
 * known addresses and call lines first, as a walk of every tree would),
 * its tree spooled to a temporary file while a profile of a sample set per
 * thread may fit the size bound, and (from the second thread on, or with
 * --merge-threads) its paths added to one merged tree, its samples at known
 * addresses spooled by merged path and its call lines summed by merged
 * path.  Once every file is read, the samples are written from the spooled
 * trees or from the merged tree.  Memory holds the distinct call paths and
 * the profile, whatever the number of processes. */

/* A thread's samples at one address on one call path of the merged tree. */
typedef struct merged_pc {
  uint64_t pc;
  uint32_t node, process, count;
} merged_pc;

typedef struct pprof_files {
  builder b;
  const ip_export_opts *o;
  uint64_t limit;             /* the size bound; 0: none */
  size_t n_views;             /* the selected threads */
  ip_thread first;            /* while it is the only one: the first, with its tree */
  size_t first_index;         /* its session index */
  int has_first, first_owned; /* first_owned: its arrays were taken from the session */
  ip_tree_spool threads;      /* the trees, from a second thread on, while their own sample
                            sets may fit */
  int labelled_out;           /* several threads' samples over the bound: no tree spooled */
  ip_tree_merger merged;      /* the threads' paths (from the second thread on) */
  uint32_t *map;              /* while adding a thread: its nodes' merged nodes */
  size_t cap_map;
  FILE *pcs;        /* merged_pc records, the threads' in session order */
  int failed;       /* a temporary file could not be made, written or read */
  site_part *parts; /* the call lines by merged path */
  size_t n_parts, cap_parts, parts_merged;
} pprof_files;

/* Every value kind: the sizing pass while the session is read (the kinds
 * the session lacks have no value anywhere, so they change no count). */
enum { ALL_KINDS = 10, MIN_KINDS = 3 };

static void grow_zeroed(void *v, size_t *cap, size_t need, size_t size) {
  size_t old = *cap;
  if (need <= old)
    return;
  ip_must_grow((void **)v, cap, need, size);
  memset(*(char **)v + old * size, 0, (*cap - old) * size);
}

/* Room in the per-function and per-module arrays for what the session has. */
static void need_session(builder *b) {
  grow_zeroed(&b->fn_of_func, &b->cap_fn_of_func, b->s->n_funcs + 1, sizeof *b->fn_of_func);
  grow_zeroed(&b->loc_of_func, &b->cap_loc_of_func, b->s->n_funcs + 1, sizeof *b->loc_of_func);
  grow_zeroed(&b->mapping_of_module, &b->cap_mapping_of_module, b->s->n_modules + 1,
              sizeof *b->mapping_of_module);
}

/* Thread t's paths into the merged tree, its samples at known addresses
 * and call lines by merged path. */
static void merge_thread(pprof_files *pf, const ip_thread *t) {
  ip_tree_view v = {t->nodes, t->n_nodes, t};
  ip_must_grow((void **)&pf->map, &pf->cap_map, t->n_nodes + 1, sizeof *pf->map);
  ip_tree_merger_add_mapped(&pf->merged, &v, pf->map);
  if (t->n_pcs && !pf->pcs && !pf->failed && !(pf->pcs = ip_temp_stream()))
    pf->failed = 1;
  for (size_t k = 0; k < t->n_pcs && pf->pcs; k++) {
    uint32_t vn = pf->map[t->pcs[k].node];
    merged_pc r;
    memset(&r, 0, sizeof r); /* its padding too: the record is written whole */
    r.pc = t->pcs[k].pc;
    r.node = vn;
    r.process = t->process;
    r.count = t->pcs[k].count;
    if (vn != IP_NO_NODE && fwrite(&r, sizeof r, 1, pf->pcs) != 1) {
      fclose(pf->pcs);
      pf->pcs = NULL;
      pf->failed = 1;
    }
  }
  for (size_t k = 0; k < t->n_sites; k++) {
    const ip_site_values *sv = &t->sites[k];
    uint32_t vn = pf->map[sv->node];
    if (vn != IP_NO_NODE)
      add_part(&pf->parts, &pf->n_parts, &pf->cap_parts,
               (site_part){vn, sv->site, sv->calls, sv->el_incl, sv->app_incl});
  }
  if (pf->n_parts > 2 * pf->parts_merged) /* bounded by the distinct call lines */
    pf->n_parts = pf->parts_merged = merge_parts(pf->parts, pf->n_parts);
}

/* Keeps thread t, the first selected one, until a second comes: its
 * arrays taken from the session thread `take` when it is given (which is
 * left its root, as a load leaves a summed thread), else borrowed. */
static void keep_first(pprof_files *pf, const ip_thread *t, size_t index, ip_thread *take) {
  pf->first = *t;
  pf->first_index = index;
  pf->has_first = 1;
  if (!take)
    return;
  ip_node root = take->nodes ? take->nodes[0] : (ip_node){0};
  root.first_child = IP_NO_NODE;
  take->nodes = ip_must_calloc(1, sizeof *take->nodes);
  take->nodes[0] = root;
  take->n_nodes = 1;
  take->pcs = NULL;
  take->n_pcs = take->cap_pcs = 0;
  take->sites = NULL;
  take->n_sites = take->cap_sites = 0;
  pf->first_owned = 1;
}

static void drop_first(pprof_files *pf) {
  if (pf->first_owned) {
    free(pf->first.nodes);
    free(pf->first.pcs);
    free(pf->first.sites);
  }
  memset(&pf->first, 0, sizeof pf->first);
  pf->has_first = pf->first_owned = 0;
}

static pprof_files *files_new(const ip_session *s, const ip_export_opts *o) {
  pprof_files *pf = ip_must_calloc(1, sizeof *pf);
  builder *b = &pf->b;
  b->s = s;
  ip_pprof_init(&b->prof);
  for (size_t k = 0; k < ALL_KINDS; k++)
    b->kinds[k] = (value_kind)k;
  b->n_kinds = ALL_KINDS;
  ip_strtab_init(&b->inlined_keys);
  ip_sample_lines_init(&b->where, s);
  need_session(b);
  pf->o = o;
  pf->limit = o->max_size == UINT64_MAX ? 0 : o->max_size ? o->max_size : DEFAULT_MAX_SIZE;
  ip_tree_spool_open(&pf->threads);
  ip_tree_merger_init(&pf->merged);
  return pf;
}

static void files_free(pprof_files *pf) {
  builder *b = &pf->b;
  free(b->depth_count);
  ip_u64map_free(&b->cut_paths);
  free(b->fn_of_func);
  free(b->loc_of_func);
  ip_strtab_free(&b->inlined_keys);
  free(b->fn_of_inlined);
  ip_sample_lines_free(&b->where);
  free(b->loc_of_addr);
  free(b->loc_of_addr_func);
  ip_u64map_free(&b->loc_of_line);
  free(b->parts);
  free(b->mapping_of_module);
  free(b->path);
  ip_pprof_free(&b->prof);
  ip_tree_spool_close(&pf->threads);
  drop_first(pf);
  ip_export_trees trees;
  ip_tree_merger_finish(&pf->merged, &trees);
  ip_export_trees_free(&trees);
  free(pf->map);
  if (pf->pcs)
    fclose(pf->pcs);
  free(pf->parts);
  free(pf);
}

/* Session thread `index` (a selected one) as its file joins the session;
 * take: the same thread, whose tree may be kept without a copy (NULL: it
 * stays the session's). */
static void files_add(pprof_files *pf, const ip_session *s, size_t index, ip_thread *take) {
  builder *b = &pf->b;
  const ip_thread *t = &s->threads[index];
  need_session(b);
  pf->n_views++;
  if (pf->o->merge_threads) {
    merge_thread(pf, t);
    return;
  }
  if (pf->limit) {
    b->counting = 1;
    add_thread(b, t);
    b->counting = 0;
  }
  if (pf->n_views == 1) {
    keep_first(pf, t, index, take);
    return;
  }
  if (pf->has_first) { /* a second thread: the first's tree to the spool and the merged tree */
    ip_tree_spool_put(&pf->threads, &pf->first, pf->first_index);
    if (pf->limit)
      merge_thread(pf, &pf->first);
    drop_first(pf);
  }
  if (pf->limit)
    merge_thread(pf, t);
  if (!pf->labelled_out)
    ip_tree_spool_put(&pf->threads, t, index);
  if (pf->limit && !pf->labelled_out && samples_size(b, 0, 1, MIN_KINDS) > pf->limit) {
    pf->labelled_out = 1; /* the merged tree's samples will be written */
    ip_tree_spool_close(&pf->threads);
  }
  pf->failed |= !pf->labelled_out && !pf->threads.f;
}

/* The samples of the merged tree, view v. */
static void walk_merged(pprof_files *pf, const ip_tree_view *v) {
  builder *b = &pf->b;
  begin_view(b, v);
  if (pf->pcs && (fflush(pf->pcs) || fseek(pf->pcs, 0, SEEK_SET)))
    pf->failed = 1;
  merged_pc r;
  while (pf->pcs && !pf->failed && fread(&r, sizeof r, 1, pf->pcs) == 1)
    if (r.node < v->n_nodes)
      address_sample(b, v->nodes, r.node, r.process, r.pc, r.count);
  pf->failed |= pf->pcs && ferror(pf->pcs);
  for (size_t k = 0; k < pf->n_parts; k++)
    add_part(&b->parts, &b->n_parts, &b->cap_parts, pf->parts[k]);
  end_view(b, v);
}

/* The samples of every selected thread's own tree, read back in order. */
static void walk_threads(pprof_files *pf) {
  if (pf->has_first) {
    add_thread(&pf->b, &pf->first);
    return;
  }
  if (ip_tree_spool_rewind(&pf->threads)) {
    pf->failed |= pf->n_views > 0;
    return;
  }
  const ip_thread *t;
  while ((t = ip_tree_spool_next(&pf->threads, pf->b.s)))
    add_thread(&pf->b, t);
  pf->failed |= !pf->threads.f;
}

static void walk_all(pprof_files *pf, const ip_export_trees *merged) {
  if (!merged)
    walk_threads(pf);
  for (size_t i = 0; merged && i < merged->n_views; i++)
    walk_merged(pf, &merged->views[i]);
}

/* Writes the profile once every file is read.  Returns 0, or -1 after a
 * one-line error. */
static int files_write(pprof_files *pf, FILE *out, const char *out_name) {
  builder *b = &pf->b;
  const ip_export_opts *o = pf->o;
  uint64_t limit = pf->limit, whole = 0;
  need_session(b);
  choose_types(b, o);
  add_header(b);
  ip_export_trees trees = {0};
  int merge = o->merge_threads, merged = 0; /* merged: to fit the bound */
  if (limit && !merge) {
    /* a sample set per thread, else the threads' paths merged into one
     * (a thread's own paths would repeat in every process), else the deepest
     * paths cut to their innermost frames */
    whole = samples_size(b, 0, 1, b->n_kinds);
    if (whole > limit && pf->n_views > 1)
      merged = 1;
    else if (whole > limit)
      choose_depth(b, limit, 1);
  }
  if (merge || merged) {
    ip_tree_merger_finish(&pf->merged, &trees);
    ip_tree_merger_init(&pf->merged);
  }
  if (limit && (merge || merged)) {
    if (b->depth_count)
      memset(b->depth_count, 0, b->cap_depth_count * sizeof *b->depth_count);
    b->counting = 1;
    walk_all(pf, &trees);
    b->counting = 0;
    uint64_t size = samples_size(b, 0, 0, b->n_kinds);
    whole = merge ? size : whole;
    if (size > limit)
      choose_depth(b, limit, 0);
  }
  const ip_export_trees *view = merge || merged ? &trees : NULL;
  walk_all(pf, view);
  /* cut paths that merge less than the depth chosen needs: half as deep */
  while (b->max_depth > 1 && written_size(b) > limit) {
    b->max_depth /= 2;
    b->prof.n_samples = b->prof.n_sample_locations = 0;
    b->cut_samples = 0;
    ip_u64map_free(&b->cut_paths);
    memset(&b->cut_paths, 0, sizeof b->cut_paths);
    walk_all(pf, view);
  }
  ip_export_trees_free(&trees);
  if (pf->failed) {
    fprintf(stderr,
            "inclprof export: %s: the threads' call trees could not be kept in a temporary file "
            "(set TMPDIR to a writable directory with room)\n",
            out_name);
    return -1;
  }
  say_fitted(b, limit, o->max_size != 0, merged, whole, pf->n_views);
  return ip_pprof_write(&b->prof, out, "export", out_name);
}

int ip_export_pprof(const ip_session *s, const ip_export_opts *o, FILE *out, const char *out_name) {
  pprof_files *pf = files_new(s, o);
  for (size_t i = 0; i < s->n_threads; i++)
    if (ip_selected_thread(s, &o->sel, &s->threads[i]))
      files_add(pf, s, i, NULL);
  int rc = files_write(pf, out, out_name);
  files_free(pf);
  return rc;
}

/* Written file by file: each selected thread taken as its file is read. */
static void pprof_file(void *ctx, ip_session *s, size_t first_thread) {
  ip_export_job *job = ctx;
  if (!job->by_file)
    job->by_file = files_new(s, job->opts);
  for (size_t i = first_thread; i < s->n_threads; i++)
    if (ip_selected_thread(s, &job->opts->sel, &s->threads[i]))
      files_add(job->by_file, s, i, &s->threads[i]);
}

static void pprof_discard(ip_export_job *job) {
  if (job->by_file)
    files_free(job->by_file);
  job->by_file = NULL;
}

/* `inclprof export --format pprof` */
static int write_pprof(ip_export_job *job, const ip_session *s) {
  if (!job->by_file) /* read whole (or no file read) */
    return ip_export_pprof(s, job->opts, job->out, job->out_name);
  int rc = files_write(job->by_file, job->out, job->out_name);
  pprof_discard(job);
  return rc;
}

const ip_exporter ip_exporter_pprof = {
    .name = "pprof",
    .readers = "go tool pprof",
    .default_output = "inclprof.pb.gz",
    .options = IP_EXOPT_MERGE_THREADS | IP_EXOPT_VALUE | IP_EXOPT_MAX_SIZE,
    .critical = 1,
    .write = write_pprof,
    .file_done = pprof_file,
    .files_discard = pprof_discard,
};
