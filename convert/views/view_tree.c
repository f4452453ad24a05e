/* views/view_tree.c - the report's call tree: per thread, one line per call path
 * with that path's values (a function called from two places appears twice),
 * children sorted by the tree's value (Elapsed Inclusive, or the inclusive
 * column --sort names), indented by depth.  --depth N and --min-percent P
 * leave out the paths deeper than N levels and the subtrees whose value is
 * under P % of the session's total; one line per thread says what was left
 * out. */
#include <stdlib.h>

#include "util/util.h"
#include "views/views.h"

/* What a thread's tree left out: the subtrees cut and the paths in them. */
typedef struct hidden {
  uint64_t roots, paths, value;
} hidden;

typedef struct tree_ctx {
  const ip_session *s;
  const ip_thread *th;
  const ip_view_opts *o;
  ip_ttable *t;
  uint64_t min_value; /* a subtree under this value is left out */
  uint64_t *paths;    /* per node: the call paths of its subtree, itself included */
  hidden deep, small;
} tree_ctx;

/* The value the tree sorts by and its threshold applies to. */
static uint64_t tree_value(const ip_values *v, ip_sort by) {
  switch (by) {
  case IP_SORT_APP_INCL:
  case IP_SORT_APP_EXCL:
    return v->app_incl;
  case IP_SORT_SAMPLES_INCL:
  case IP_SORT_SAMPLES_EXCL:
    return v->smp_incl;
  default:
    return v->el_incl;
  }
}

static const char *tree_value_name(ip_sort by) {
  switch (by) {
  case IP_SORT_APP_INCL:
  case IP_SORT_APP_EXCL:
    return "Application Inclusive";
  case IP_SORT_SAMPLES_INCL:
  case IP_SORT_SAMPLES_EXCL:
    return "Inclusive samples";
  default:
    return "Elapsed Inclusive";
  }
}

typedef struct sort_ctx {
  const ip_node *nodes;
  ip_sort by;
} sort_ctx;

static int by_value(const void *a, const void *b, void *c) {
  const sort_ctx *k = c;
  uint64_t x = tree_value(&k->nodes[*(const uint32_t *)a].v, k->by),
           y = tree_value(&k->nodes[*(const uint32_t *)b].v, k->by);
  return (x < y) - (x > y);
}

/* Per node, the call paths of its subtree (a child's index is above its
 * parent's, so one backward pass adds them up). */
static uint64_t *subtree_paths(const ip_thread *th) {
  uint64_t *n = ip_must_calloc(th->n_nodes, sizeof *n);
  for (size_t i = th->n_nodes; i-- > 1;) {
    n[i]++;
    n[th->nodes[i].parent] += n[i];
  }
  return n;
}

static void leave_out(tree_ctx *c, hidden *h, uint32_t node) {
  h->roots++;
  h->paths += c->paths[node];
  h->value += tree_value(&c->th->nodes[node].v, c->o->sort);
}

#define MAX_SHOWN_DEPTH 200

static void emit(tree_ctx *c, uint32_t node, int depth) {
  const ip_node *nodes = c->th->nodes;
  if (node != 0 && c->o->depth && (size_t)depth > c->o->depth) {
    leave_out(c, &c->deep, node);
    return;
  }
  if (node != 0 && tree_value(&nodes[node].v, c->o->sort) < c->min_value) {
    leave_out(c, &c->small, node);
    return;
  }
  if (depth > MAX_SHOWN_DEPTH) {
    for (int i = 0; i < (c->o->latency ? 6 : c->o->samples ? 13 : 9); i++)
      ip_tt_add(c->t, "%s", "");
    ip_tt_add(c->t, "%*s... (paths deeper than %d not shown)", 2 * (depth - 1), "",
              MAX_SHOWN_DEPTH);
    return;
  }
  if (node != 0) {
    if (c->o->latency)
      ip_view_latency_cells(c->t, c->o->app_value ? &c->th->lat[node].app : &c->th->lat[node].el);
    else
      ip_view_value_cells(c->t, c->s, &nodes[node].v, c->o->samples);
    ip_tt_add(c->t, "%*s%s", 2 * (depth - 1), "", c->s->funcs[nodes[node].func].pretty);
  }
  size_t n = 0;
  for (uint32_t k = nodes[node].first_child; k != IP_NO_NODE; k = nodes[k].next_sibling)
    n++;
  uint32_t *kids = ip_must_calloc(n, sizeof *kids);
  n = 0;
  for (uint32_t k = nodes[node].first_child; k != IP_NO_NODE; k = nodes[k].next_sibling)
    kids[n++] = k;
  sort_ctx k = {nodes, c->o->sort};
  qsort_r(kids, n, sizeof *kids, by_value, &k);
  if (c->o->top && c->o->top < n)
    n = c->o->top;
  for (size_t i = 0; i < n; i++)
    emit(c, kids[i], depth + 1);
  free(kids);
}

/* The value in the unit of its kind: a time or a sample count. */
static void fmt_value(char *buf, size_t len, uint64_t v, ip_sort by) {
  if (by == IP_SORT_SAMPLES_INCL || by == IP_SORT_SAMPLES_EXCL)
    snprintf(buf, len, "%llu samples", (unsigned long long)v);
  else
    ip_fmt_ns(buf, len, v);
}

static void hidden_line(FILE *out, const tree_ctx *c) {
  const ip_view_opts *o = c->o;
  char v[32];
  if (c->deep.roots) {
    fmt_value(v, sizeof v, c->deep.value, o->sort);
    fprintf(out,
            "  hidden: %llu call path%s deeper than %zu level%s (%llu subtree%s, %s of %s at their "
            "tops)\n",
            (unsigned long long)c->deep.paths, c->deep.paths == 1 ? "" : "s", o->depth,
            o->depth == 1 ? "" : "s", (unsigned long long)c->deep.roots,
            c->deep.roots == 1 ? "" : "s", v, tree_value_name(o->sort));
  }
  if (c->small.roots) {
    fmt_value(v, sizeof v, c->small.value, o->sort);
    fprintf(out,
            "  hidden: %llu call path%s in %llu subtree%s under %g%% of the session's %s (%s "
            "at their tops)\n",
            (unsigned long long)c->small.paths, c->small.paths == 1 ? "" : "s",
            (unsigned long long)c->small.roots, c->small.roots == 1 ? "" : "s", o->min_percent,
            tree_value_name(o->sort), v);
  }
}

void ip_view_tree(FILE *out, const ip_session *s, const ip_view_opts *o) {
  uint64_t total = tree_value(&s->total, o->sort);
  for (size_t i = 0; i < s->n_threads; i++) {
    const ip_thread *th = &s->threads[i];
    if (!ip_selected_thread(s, &o->sel, th) || th->nodes[0].first_child == IP_NO_NODE)
      continue;
    char name[512];
    fprintf(out, "thread %s:\n", ip_row_name(s, IP_BY_THREAD, (uint32_t)i, name, sizeof name));
    ip_ttable t;
    ip_tt_init(&t, o->latency ? 7 : 10 + (o->samples ? 4 : 0));
    if (o->latency)
      ip_view_latency_titles(&t);
    else
      ip_view_value_titles(&t, o->samples);
    ip_tt_add(&t, "Call path");
    tree_ctx c = {s, th, o, &t, 0, NULL, {0, 0, 0}, {0, 0, 0}};
    /* a value under P % of the total; with P > 0 a value of 0 is always under */
    if (o->min_percent > 0) {
      double v = o->min_percent / 100.0 * (double)total;
      c.min_value = v < 1 ? 1 : (uint64_t)v + ((double)(uint64_t)v < v);
    }
    if (o->depth || o->min_percent > 0)
      c.paths = subtree_paths(th);
    emit(&c, 0, 0);
    free(c.paths);
    ip_tt_print_fit(&t, out, 2, o->width);
    ip_tt_free(&t);
    hidden_line(out, &c);
    fputc('\n', out);
  }
}
