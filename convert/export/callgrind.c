/* export/callgrind.c - callgrind profile: self costs per function and call
 * edges with inclusive costs, computed in one walk of each call tree.
 *
 * Every unit of exclusive cost at a call path is added, for each distinct
 * function g on that path, to the edge into g's OUTERMOST frame.  The
 * incoming edges of g then sum to exactly our Inclusive value of g, even
 * under recursion, which is how callgrind_annotate and KCachegrind compute
 * inclusive costs.
 *
 * Lines: a function's Samples self cost is written per source line from the
 * samples that know their address (an inlined function's lines under fi=
 * its file, then fe= back), the rest at its first line with the times and
 * calls.  A call edge made with call-site probes is written once per call
 * line, its calls and costs shared by the line's calls and time. */
#include "export/callgrind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "export/pprof.h"
#include "export/sample_lines.h"
#include "export/strtab.h"
#include "export/tree.h"
#include "version.h"

enum { EV_ELAPSED, EV_APPLICATION, EV_CALLS, EV_SAMPLES, N_EVENTS };

typedef struct cost {
  uint64_t c[N_EVENTS];
} cost;

typedef struct edge {
  uint32_t caller, callee;
  uint64_t count; /* direct calls */
  cost incl;
} edge;

typedef struct frame {
  uint32_t id;
  int first; /* the outermost frame of its function on this path */
} frame;

/* The calls from caller to callee on one call line (site: UINT32_MAX for
 * those on no known line). */
typedef struct call_line {
  uint32_t caller, callee, site;
  uint64_t calls, el, app;
} call_line;

/* While the trees are walked, a view's root has the id ROOT_ID(its view);
 * once walked (finish_ids), the ids are the session's functions
 * 0..n_funcs-1, then one root per view. */
#define ROOT_BASE     0x80000000u
#define ROOT_ID(view) (ROOT_BASE + (uint32_t)(view))

typedef struct cg {
  const ip_session *s;
  size_t n_ids; /* while walking: the functions self, used and onstack have room for */
  cost *self;
  unsigned char *used;
  cost *root_self; /* while walking: each view's root's self cost */
  char (*root_names)[96];
  size_t n_roots, cap_roots;
  ip_tree_merger merged; /* --merge-threads, written file by file: the threads' paths */
  ip_line_hits hits;     /* the samples at known addresses */
  size_t cap_sites;
  edge *edges;
  size_t n_edges, cap_edges;
  uint32_t *slots; /* edge index + 1, 0 = empty */
  size_t n_slots;
  uint32_t *onstack; /* frames of each id on the current path */
  frame *frames;
  uint32_t *firsts; /* positions of the frames with first set */
  size_t depth, n_firsts, cap;
  uint32_t root;      /* id of the current view's root */
  ip_line_rows lines; /* Exclusive samples by function and line, by function */
  size_t *line_first; /* per session function: its first row of lines (n_funcs + 1) */
  call_line *sites;   /* by caller, callee and line */
  size_t n_sites;
} cg;

static size_t edge_slot(const cg *g, uint32_t caller, uint32_t callee) {
  uint64_t h = ((uint64_t)caller << 32 | callee) * 0x9E3779B97F4A7C15ull;
  size_t mask = g->n_slots - 1, i = (size_t)(h >> 20) & mask;
  while (g->slots[i]) {
    const edge *e = &g->edges[g->slots[i] - 1];
    if (e->caller == caller && e->callee == callee)
      break;
    i = (i + 1) & mask;
  }
  return i;
}

static edge *edge_of(cg *g, uint32_t caller, uint32_t callee) {
  if (2 * (g->n_edges + 1) > g->n_slots) {
    free(g->slots);
    g->n_slots = g->n_slots ? 2 * g->n_slots : 256;
    g->slots = ip_must_calloc(g->n_slots, sizeof *g->slots);
    for (size_t k = 0; k < g->n_edges; k++)
      g->slots[edge_slot(g, g->edges[k].caller, g->edges[k].callee)] = (uint32_t)k + 1;
  }
  size_t i = edge_slot(g, caller, callee);
  if (!g->slots[i]) {
    if (g->n_edges == g->cap_edges)
      g->edges = ip_must_realloc(g->edges, g->cap_edges = g->cap_edges ? 2 * g->cap_edges : 256,
                                 sizeof *g->edges);
    edge *e = &g->edges[g->n_edges++];
    memset(e, 0, sizeof *e);
    e->caller = caller;
    e->callee = callee;
    g->slots[i] = (uint32_t)g->n_edges;
  }
  return &g->edges[g->slots[i] - 1];
}

static void cost_add(cost *a, const cost *b) {
  for (int i = 0; i < N_EVENTS; i++)
    a->c[i] += b->c[i];
}

static cost exclusive(const ip_values *v) {
  return (cost){{v->el_excl, v->app_excl, v->calls, v->smp_excl}};
}

static void pop_frame(cg *g) {
  const frame *f = &g->frames[--g->depth];
  g->onstack[f->id]--;
  if (f->first)
    g->n_firsts--;
}

static void visit(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  cg *g = ctx;
  const ip_node *n = &v->nodes[path[depth - 1]];
  while (g->depth >= depth)
    pop_frame(g);
  if (depth > g->cap) {
    g->cap = 2 * depth;
    g->frames = ip_must_realloc(g->frames, g->cap, sizeof *g->frames);
    g->firsts = ip_must_realloc(g->firsts, g->cap, sizeof *g->firsts);
  }
  uint32_t id = n->func;
  frame *f = &g->frames[g->depth];
  f->id = id;
  f->first = !g->onstack[id]++;
  if (f->first)
    g->firsts[g->n_firsts++] = (uint32_t)g->depth;
  g->depth++;
  g->used[id] = 1;

  cost unit = exclusive(&n->v);
  cost_add(&g->self[id], &unit);
  uint32_t caller = depth > 1 ? g->frames[depth - 2].id : g->root;
  edge_of(g, caller, id)->count += n->v.calls;
  for (size_t k = 0; k < g->n_firsts; k++) {
    uint32_t p = g->firsts[k];
    cost_add(&edge_of(g, p ? g->frames[p - 1].id : g->root, g->frames[p].id)->incl, &unit);
  }
}

/* Room in the per-function arrays for every function the session has. */
static void need_ids(cg *g) {
  size_t n = g->s->n_funcs, old = g->n_ids;
  if (n <= old)
    return;
  g->self = ip_must_realloc(g->self, n, sizeof *g->self);
  g->used = ip_must_realloc(g->used, n, 1);
  g->onstack = ip_must_realloc(g->onstack, n, sizeof *g->onstack);
  memset(g->self + old, 0, (n - old) * sizeof *g->self);
  memset(g->used + old, 0, n - old);
  memset(g->onstack + old, 0, (n - old) * sizeof *g->onstack);
  g->n_ids = n;
}

/* Walks view v: its root a new id, named after its thread ("(all threads)"
 * for a merged tree). */
static void add_view(cg *g, const ip_tree_view *v) {
  need_ids(g);
  ip_must_grow((void **)&g->root_self, &g->cap_roots, g->n_roots + 1, sizeof *g->root_self);
  size_t cap = g->n_roots;
  ip_must_grow((void **)&g->root_names, &cap, g->cap_roots, sizeof *g->root_names);
  size_t i = g->n_roots++;
  if (v->thread)
    ip_thread_label(v->thread, g->root_names[i], sizeof g->root_names[i]);
  else
    snprintf(g->root_names[i], sizeof g->root_names[i], "(all threads)");
  memset(&g->root_self[i], 0, sizeof g->root_self[i]);
  if (v->n_nodes)
    g->root_self[i] = exclusive(&v->nodes[0].v), g->root_self[i].c[EV_CALLS] = 0;
  g->root = ROOT_ID(i);
  ip_tree_walk(v, visit, g);
  while (g->depth)
    pop_frame(g);
}

/* The walks done: the roots take the ids after the session's functions. */
static void finish_ids(cg *g) {
  size_t n_funcs = g->s->n_funcs;
  need_ids(g);
  g->n_ids = n_funcs + g->n_roots;
  g->self = ip_must_realloc(g->self, g->n_ids ? g->n_ids : 1, sizeof *g->self);
  g->used = ip_must_realloc(g->used, g->n_ids ? g->n_ids : 1, 1);
  for (size_t i = 0; i < g->n_roots; i++) {
    g->self[n_funcs + i] = g->root_self[i];
    g->used[n_funcs + i] = 1;
  }
  for (size_t e = 0; e < g->n_edges; e++)
    if (g->edges[e].caller >= ROOT_BASE)
      g->edges[e].caller = (uint32_t)(n_funcs + (g->edges[e].caller - ROOT_BASE));
}

/* --- lines -------------------------------------------------------------- */

static int cmp_row(const void *a, const void *b) {
  const ip_line_row *x = a, *y = b;
  if (x->func != y->func)
    return x->func < y->func ? -1 : 1;
  int c = strcmp(x->where.frame[0].file, y->where.frame[0].file);
  if (c)
    return c;
  return (x->where.frame[0].line > y->where.frame[0].line) -
         (x->where.frame[0].line < y->where.frame[0].line);
}

/* The selected threads' samples by function and source line, of the lines
 * in the function's own code (and what was inlined into it): a sample in a
 * callee without probes stays at its function's first line. */
static void gather_lines(cg *g) {
  ip_sample_lines where;
  ip_sample_lines_init(&where, g->s);
  ip_line_rows_from_hits(g->s, &g->hits, 0, ip_sample_lines_locate, &where, &g->lines);
  ip_sample_lines_free(&where);
  size_t m = 0;
  for (size_t i = 0; i < g->lines.n; i++) {
    const ip_line_row *r = &g->lines.v[i];
    if (r->where.frame[0].file[0] && r->where.frame[0].line &&
        ip_sample_in_func(&r->where, &g->s->funcs[r->func]))
      g->lines.v[m++] = *r;
  }
  g->lines.n = m;
  if (m)
    qsort(g->lines.v, m, sizeof *g->lines.v, cmp_row);
  g->line_first = ip_must_calloc(g->s->n_funcs + 1, sizeof *g->line_first);
  size_t r = 0;
  for (size_t f = 0; f <= g->s->n_funcs; f++) {
    while (r < m && g->lines.v[r].func < f)
      r++;
    g->line_first[f] = r;
  }
}

static int cmp_call_line(const void *a, const void *b) {
  const call_line *x = a, *y = b;
  if (x->caller != y->caller)
    return x->caller < y->caller ? -1 : 1;
  if (x->callee != y->callee)
    return x->callee < y->callee ? -1 : 1;
  return (x->site > y->site) - (x->site < y->site);
}

/* Calls by caller, callee and call line summed into one, sorted by them. */
static void merge_call_lines(cg *g) {
  if (g->n_sites)
    qsort(g->sites, g->n_sites, sizeof *g->sites, cmp_call_line);
  size_t m = 0;
  for (size_t i = 0; i < g->n_sites; i++) {
    call_line *last = m ? &g->sites[m - 1] : NULL;
    if (last && !cmp_call_line(last, &g->sites[i])) {
      last->calls += g->sites[i].calls;
      last->el += g->sites[i].el;
      last->app += g->sites[i].app;
    } else {
      g->sites[m++] = g->sites[i];
    }
  }
  g->n_sites = m;
}

/* Thread t's calls by caller, callee and call line, and its samples at
 * known addresses. */
static void add_thread_lines(cg *g, const ip_thread *t) {
  size_t before = g->n_sites;
  for (size_t k = 0; k < t->n_sites; k++) {
    const ip_site_values *sv = &t->sites[k];
    uint32_t parent = t->nodes[sv->node].parent;
    if (!parent || parent == IP_NO_NODE)
      continue;
    ip_must_grow((void **)&g->sites, &g->cap_sites, g->n_sites + 1, sizeof *g->sites);
    g->sites[g->n_sites++] = (call_line){
        t->nodes[parent].func, t->nodes[sv->node].func, sv->site, sv->calls, sv->el_incl,
        sv->app_incl};
  }
  if (g->n_sites > 2 * before && before) /* bounded by the distinct call lines */
    merge_call_lines(g);
  ip_line_hits_add(&g->hits, g->s, t, NULL);
}

/* --- writing ------------------------------------------------------------ */

typedef struct names {
  ip_strtab files, objects;
  unsigned char *file_seen, *object_seen, *fn_seen; /* name already written once */
  size_t file_cap, object_cap;
} names;

/* KEY=(ID) NAME the first time, KEY=(ID) afterwards (name compression). */
static void put_name(FILE *out, const char *key, size_t id, unsigned char *seen, const char *name) {
  fprintf(out, "%s=(%zu)", key, id);
  if (!seen[id]) {
    seen[id] = 1;
    putc(' ', out);
    for (const char *p = name; *p; p++)
      putc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
  }
  putc('\n', out);
}

/* ob=, fl= and fn= lines for id (callee: cob=, cfi=, cfn=). */
static void put_function(FILE *out, const cg *g, names *nm, uint32_t id, const char *root_name,
                         int callee) {
  const ip_func *f = id < g->s->n_funcs ? &g->s->funcs[id] : NULL;
  const char *obj = f && f->module < g->s->n_modules ? g->s->modules[f->module].path : "???";
  const char *file = f && f->file && *f->file ? f->file : "???";
  const char *name = !f ? root_name : f->pretty && *f->pretty ? f->pretty : f->name;
  uint32_t o = ip_strtab_intern(&nm->objects, obj), fl = ip_strtab_intern(&nm->files, file);
  ip_must_grow((void **)&nm->object_seen, &nm->object_cap, nm->objects.n, 1);
  ip_must_grow((void **)&nm->file_seen, &nm->file_cap, nm->files.n, 1);
  put_name(out, callee ? "cob" : "ob", o, nm->object_seen, obj);
  put_name(out, callee ? "cfi" : "fl", fl, nm->file_seen, file);
  put_name(out, callee ? "cfn" : "fn", (size_t)id + 1, nm->fn_seen, name);
}

static uint32_t line_of(const cg *g, uint32_t id) {
  return id < g->s->n_funcs ? g->s->funcs[id].line : 0;
}

static void put_cost(FILE *out, uint32_t line, const cost *c, const int *order, int n) {
  fprintf(out, "%" PRIu32, line);
  for (int i = 0; i < n; i++)
    fprintf(out, " %" PRIu64, c->c[order[i]]);
  putc('\n', out);
}

/* A KEY=(ID) NAME line of a source file (fi=, fe=). */
static void put_file(FILE *out, names *nm, const char *key, const char *file) {
  uint32_t id = ip_strtab_intern(&nm->files, file);
  ip_must_grow((void **)&nm->file_seen, &nm->file_cap, nm->files.n, 1);
  put_name(out, key, id, nm->file_seen, file);
}

/* Function id's self cost: the times and calls at its first line with the
 * samples of no known line, then its samples per line (fl= its file, fi=
 * another file, fe= back to its own). */
static void put_self(FILE *out, const cg *g, names *nm, uint32_t id, const int *order, int n) {
  cost self = g->self[id];
  size_t from = 0, to = 0;
  if (g->line_first && id < g->s->n_funcs)
    from = g->line_first[id], to = g->line_first[id + 1];
  for (size_t r = from; r < to; r++)
    self.c[EV_SAMPLES] -= g->lines.v[r].samples; /* every row's samples are counted in self */
  put_cost(out, line_of(g, id), &self, order, n);
  if (from == to)
    return;
  const ip_func *f = &g->s->funcs[id];
  const char *own = f->file && *f->file ? f->file : "???", *at = own;
  for (int pass = 0; pass < 2; pass++)
    for (size_t r = from; r < to; r++) {
      const ip_src_frame *fr = &g->lines.v[r].where.frame[0];
      if (!strcmp(fr->file, own) != !pass)
        continue;
      if (strcmp(fr->file, at))
        put_file(out, nm, "fi", fr->file);
      at = fr->file;
      cost c = {{0}};
      c.c[EV_SAMPLES] = g->lines.v[r].samples;
      put_cost(out, fr->line, &c, order, n);
    }
  if (strcmp(at, own))
    put_file(out, nm, "fe", own);
}

/* The weight of a call line in the share of event e: its calls, its
 * Application or its Elapsed time (1 each when all are 0). */
static uint64_t call_line_weight(int e, const call_line *c, int flat) {
  return flat ? 1 : e == EV_CALLS ? c->calls : e == EV_APPLICATION ? c->app : c->el;
}

/* Call edge x: once per call line of its calls (the rest at the caller's
 * first line), calls and costs shared out by the lines' calls and time. */
static void put_calls(FILE *out, const cg *g, names *nm, const edge *x, const int *order, int n) {
  call_line key = {.caller = x->caller, .callee = x->callee};
  size_t lo = 0, hi = g->n_sites;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (cmp_call_line(&g->sites[mid], &key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  const ip_func *f = x->caller < g->s->n_funcs ? &g->s->funcs[x->caller] : NULL;
  const char *own = f && f->file && *f->file ? f->file : "???";
  call_line parts[64];
  size_t k = 0;
  uint64_t calls = 0, el = 0, app = 0;
  for (; lo < g->n_sites && k + 1 < sizeof parts / sizeof parts[0] &&
         g->sites[lo].caller == x->caller && g->sites[lo].callee == x->callee;
       lo++) {
    parts[k] = g->sites[lo];
    calls += parts[k].calls, el += parts[k].el, app += parts[k].app;
    k++;
  }
  call_line rest = {x->caller,
                    x->callee,
                    UINT32_MAX,
                    x->count > calls ? x->count - calls : 0,
                    x->incl.c[EV_ELAPSED] > el ? x->incl.c[EV_ELAPSED] - el : 0,
                    x->incl.c[EV_APPLICATION] > app ? x->incl.c[EV_APPLICATION] - app : 0};
  if (!k || rest.calls || rest.el || rest.app)
    parts[k++] = rest;
  uint64_t all[N_EVENTS] = {0}, before[N_EVENTS] = {0}, all_calls = 0, before_calls = 0;
  int flat[N_EVENTS];
  for (size_t j = 0; j < k; j++)
    all_calls += parts[j].calls;
  for (int e = 0; e < N_EVENTS; e++) {
    for (size_t j = 0; j < k; j++)
      all[e] += call_line_weight(e, &parts[j], 0);
    flat[e] = !all[e];
    all[e] = flat[e] ? k : all[e];
  }
  for (size_t j = 0; j < k; j++) {
    cost c;
    for (int e = 0; e < N_EVENTS; e++) {
      uint64_t w = call_line_weight(e, &parts[j], flat[e]);
      c.c[e] = ip_share(x->incl.c[e], before[e], w, all[e]);
      before[e] += w;
    }
    uint64_t count =
        k == 1 ? x->count : ip_share(x->count, before_calls, parts[j].calls, all_calls);
    before_calls += parts[j].calls;
    const ip_site *site = parts[j].site == UINT32_MAX ? NULL : &g->s->sites[parts[j].site];
    int elsewhere = site && strcmp(site->file, own); /* a call in code inlined from elsewhere */
    if (elsewhere)
      put_file(out, nm, "fi", site->file);
    put_function(out, g, nm, x->callee, NULL, 1);
    /* A path's frame is one call even when the trace never saw it return. */
    fprintf(out, "calls=%" PRIu64 " %" PRIu32 "\n", k == 1 && !count ? 1 : count,
            line_of(g, x->callee));
    put_cost(out, site ? site->line : line_of(g, x->caller), &c, order, n);
    if (elsewhere)
      put_file(out, nm, "fe", own);
  }
}

static int by_caller(const void *a, const void *b) {
  const edge *x = a, *y = b;
  if (x->caller != y->caller)
    return x->caller < y->caller ? -1 : 1;
  return x->callee < y->callee ? -1 : x->callee > y->callee;
}

static void put_header(FILE *out, const ip_session *s, const int *order, int n_events) {
  static const char *const short_names[] = {"Elapsed", "Application", "Calls", "Samples"};
  static const char *const long_names[] = {"Elapsed time (ns)", "Application time (ns)", "Calls",
                                           "CPU-time samples"};
  fputs("# callgrind format\nversion: 1\ncreator: inclprof " INCLPROF_VERSION "\n", out);
  if (s->n_processes == 1) {
    const ip_process *p = &s->processes[0];
    fprintf(out, "pid: %" PRIu32 "\n", p->pid);
    if (p->cmdline && *p->cmdline && !strpbrk(p->cmdline, "\r\n"))
      fprintf(out, "cmd: %s\n", p->cmdline);
  }
  fputs("positions: line\n", out);
  for (int i = 0; i < n_events; i++)
    fprintf(out, "event: %s : %s\n", short_names[order[i]], long_names[order[i]]);
  fputs("events:", out);
  for (int i = 0; i < n_events; i++)
    fprintf(out, " %s", short_names[order[i]]);
  fputs("\n\n", out);
}

/* Writes the profile from what the walks gathered, then frees it. */
static void write_profile(cg *g, const ip_export_opts *o, FILE *out) {
  const ip_session *s = g->s;
  finish_ids(g);
  int order[N_EVENTS], n_events = 0;
  int first = o->value == IP_VALUE_APPLICATION ? EV_APPLICATION
              : o->value == IP_VALUE_SAMPLES   ? EV_SAMPLES
                                               : EV_ELAPSED;
  int sampled = ip_session_sampled(s);
  if (sampled)
    gather_lines(g);
  merge_call_lines(g);
  order[n_events++] = first;
  for (int e = 0; e < N_EVENTS; e++)
    if (e != first && (e != EV_SAMPLES || sampled))
      order[n_events++] = e;
  put_header(out, s, order, n_events);

  names nm = {.fn_seen = ip_must_calloc(g->n_ids + 1, 1)};
  ip_strtab_init(&nm.files);
  ip_strtab_init(&nm.objects);
  qsort(g->edges, g->n_edges, sizeof *g->edges, by_caller);
  cost total = {{0}};
  size_t e = 0;
  for (uint32_t id = 0; id < g->n_ids; id++) {
    if (!g->used[id])
      continue;
    const char *root_name = id >= s->n_funcs ? g->root_names[id - s->n_funcs] : NULL;
    put_function(out, g, &nm, id, root_name, 0);
    put_self(out, g, &nm, id, order, n_events);
    cost_add(&total, &g->self[id]);
    for (; e < g->n_edges && g->edges[e].caller == id; e++)
      put_calls(out, g, &nm, &g->edges[e], order, n_events);
    putc('\n', out);
  }
  fputs("totals:", out);
  for (int i = 0; i < n_events; i++)
    fprintf(out, " %" PRIu64, total.c[order[i]]);
  putc('\n', out);

  ip_strtab_free(&nm.files);
  ip_strtab_free(&nm.objects);
  free(nm.file_seen);
  free(nm.object_seen);
  free(nm.fn_seen);
}

static void cg_free(cg *g) {
  free(g->root_names);
  free(g->root_self);
  free(g->self);
  free(g->used);
  free(g->onstack);
  free(g->edges);
  free(g->slots);
  free(g->frames);
  free(g->firsts);
  ip_line_rows_free(&g->lines);
  free(g->line_first);
  free(g->sites);
  free(g->hits.v);
  if (g->merged.nodes) {
    ip_export_trees trees;
    ip_tree_merger_finish(&g->merged, &trees);
    ip_export_trees_free(&trees);
  }
  memset(g, 0, sizeof *g);
}

void ip_export_callgrind(const ip_session *s, const ip_export_opts *o, FILE *out) {
  ip_export_trees trees;
  ip_export_trees_build(&trees, s, o->merge_threads, &o->sel);
  cg g = {.s = s};
  for (size_t i = 0; i < trees.n_views; i++)
    add_view(&g, &trees.views[i]);
  for (size_t i = 0; i < s->n_threads; i++)
    if (ip_selected_thread(s, &o->sel, &s->threads[i]))
      add_thread_lines(&g, &s->threads[i]);
  write_profile(&g, o, out);
  cg_free(&g);
  ip_export_trees_free(&trees);
}

/* Written file by file: each thread's tree walked (or its paths added to
 * the merged tree, --merge-threads) and its call lines and samples taken
 * as its file is read. */
static void callgrind_file(void *ctx, ip_session *s, size_t first_thread) {
  ip_export_job *job = ctx;
  const ip_export_opts *o = job->opts;
  cg *g = job->by_file;
  if (!g) {
    g = job->by_file = ip_must_calloc(1, sizeof *g);
    g->s = s;
    if (o->merge_threads)
      ip_tree_merger_init(&g->merged);
  }
  for (size_t i = first_thread; i < s->n_threads; i++) {
    const ip_thread *t = &s->threads[i];
    if (!ip_selected_thread(s, &o->sel, t))
      continue;
    ip_tree_view v = {t->nodes, t->n_nodes, t};
    if (o->merge_threads)
      ip_tree_merger_add(&g->merged, &v);
    else
      add_view(g, &v);
    add_thread_lines(g, t);
  }
}

static void callgrind_discard(ip_export_job *job) {
  if (job->by_file)
    cg_free(job->by_file);
  free(job->by_file);
  job->by_file = NULL;
}

/* `inclprof export --format callgrind` */
static int write_callgrind(ip_export_job *job, const ip_session *s) {
  cg *g = job->by_file;
  if (!g) { /* read whole (or no file read) */
    ip_export_callgrind(s, job->opts, job->out);
    return 0;
  }
  ip_export_trees trees = {0};
  if (job->opts->merge_threads) {
    ip_tree_merger_finish(&g->merged, &trees);
    for (size_t i = 0; i < trees.n_views; i++)
      add_view(g, &trees.views[i]);
  }
  write_profile(g, job->opts, job->out);
  ip_export_trees_free(&trees);
  callgrind_discard(job);
  return 0; /* a write error shows when the file is closed */
}

const ip_exporter ip_exporter_callgrind = {
    .name = "callgrind",
    .readers = "KCachegrind, callgrind_annotate",
    .default_output = "callgrind.out.inclprof",
    .options = IP_EXOPT_MERGE_THREADS | IP_EXOPT_VALUE,
    .write = write_callgrind,
    .file_done = callgrind_file,
    .files_discard = callgrind_discard,
};
