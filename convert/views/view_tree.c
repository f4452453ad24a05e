/* views/view_tree.c - the report's call tree: per thread, one line per call path
 * with that path's values (a function called from two places appears twice),
 * children sorted like the table, indented by depth.  --hot expands only the
 * hottest path: from each call path its child with the most Elapsed (or,
 * with --value application, Application) Inclusive time, down to a path
 * with no callee; --top N shows the next N-1 children of each level beside
 * it, collapsed; a line under the table names where the path ends. */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "views/views.h"

typedef struct tree_ctx {
  const ip_session *s;
  const ip_thread *th;
  const ip_view_opts *o;
  ip_vtable *v;               /* the values' table, or ... */
  ip_ttable *t;               /* ... --latency's */
  uint32_t hot_end, hot_excl; /* --hot: the path's last node, and its node of most Exclusive */
  size_t hot_levels;
} tree_ctx;

static uint64_t hot_value(const ip_values *v, int app) { return app ? v->app_incl : v->el_incl; }
static uint64_t hot_excl(const ip_values *v, int app) { return app ? v->app_excl : v->el_excl; }

typedef struct sort_ctx {
  const ip_node *nodes;
  int app;
} sort_ctx;

static int by_value(const void *a, const void *b, void *c) {
  const sort_ctx *k = c;
  uint64_t x = hot_value(&k->nodes[*(const uint32_t *)a].v, k->app),
           y = hot_value(&k->nodes[*(const uint32_t *)b].v, k->app);
  return (x < y) - (x > y);
}

#define MAX_SHOWN_DEPTH 200

static void row(tree_ctx *c, uint32_t node, int depth) {
  const ip_node *nodes = c->th->nodes;
  const ip_func *f = &c->s->funcs[nodes[node].func];
  if (c->o->latency) {
    ip_view_latency_cells(c->t, c->o->app_value ? &c->th->lat[node].app : &c->th->lat[node].el);
    ip_tt_add_level(c->t, (unsigned)depth - 1, "%s", f->pretty);
  } else {
    ip_vtable_row(c->v, &nodes[node].v, NULL, nodes[node].func, (unsigned)depth - 1, f->pretty);
  }
}

static void emit(tree_ctx *c, uint32_t node, int depth, int expand) {
  const ip_node *nodes = c->th->nodes;
  if (depth > MAX_SHOWN_DEPTH) {
    char note[96];
    snprintf(note, sizeof note, "... (paths deeper than %d not shown)", MAX_SHOWN_DEPTH);
    if (c->o->latency) {
      for (int i = 0; i < 6; i++)
        ip_tt_add(c->t, "%s", "");
      ip_tt_add_level(c->t, (unsigned)depth - 1, "%s", note);
    } else {
      ip_vtable_note(c->v, (unsigned)depth - 1, note);
    }
    return;
  }
  if (node != 0)
    row(c, node, depth);
  if (!expand)
    return;
  size_t n = 0;
  for (uint32_t k = nodes[node].first_child; k != IP_NO_NODE; k = nodes[k].next_sibling)
    n++;
  uint32_t *kids = ip_must_calloc(n + 1, sizeof *kids);
  n = 0;
  for (uint32_t k = nodes[node].first_child; k != IP_NO_NODE; k = nodes[k].next_sibling)
    kids[n++] = k;
  sort_ctx k = {nodes, c->o->hot && c->o->app_value};
  qsort_r(kids, n, sizeof *kids, by_value, &k);
  if (c->o->hot) {
    if (node != 0) {
      c->hot_end = node;
      c->hot_levels = (size_t)depth;
      if (hot_excl(&nodes[node].v, k.app) > hot_excl(&nodes[c->hot_excl].v, k.app))
        c->hot_excl = node;
    }
    size_t shown = c->o->top ? c->o->top : 1;
    for (size_t i = 0; i < n && i < shown; i++)
      emit(c, kids[i], depth + 1, i == 0);
  } else {
    if (c->o->top && c->o->top < n)
      n = c->o->top;
    for (size_t i = 0; i < n; i++)
      emit(c, kids[i], depth + 1, 1);
  }
  free(kids);
}

/* fn, cut so that a line of prefix, fn and suffix fits width (at least
 * 16 characters of it), into buf. */
static const char *fit(const char *fn, size_t width, const char *prefix, const char *suffix,
                       char *buf, size_t len) {
  size_t other = strlen(prefix) + strlen(suffix);
  if (!width) {
    snprintf(buf, len, "%s", fn);
    return buf;
  }
  size_t room = width > other + 16 ? width - other : 16;
  ip_name_cut(fn, room < len ? room : len - 1, 0, 0, 0, buf, len);
  return buf;
}

/* Under a thread's --hot table: where the path ends and where on it most
 * of its own time went. */
static void hot_line(FILE *out, const tree_ctx *c) {
  if (!c->hot_end)
    return;
  const ip_node *nodes = c->th->nodes;
  int app = c->o->app_value;
  const char *kind = app ? "Application" : "Elapsed";
  char end[32], excl[32], total[32], prefix[160], suffix[128], name[1024];
  ip_fmt_ns(end, sizeof end, hot_value(&nodes[c->hot_end].v, app));
  ip_fmt_ns(excl, sizeof excl, hot_excl(&nodes[c->hot_excl].v, app));
  ip_fmt_ns(total, sizeof total, hot_value(&c->th->total, app));
  fprintf(out, "  hot path: %zu level%s by %s Inclusive\n", c->hot_levels,
          c->hot_levels == 1 ? "" : "s", kind);
  snprintf(prefix, sizeof prefix, "  its end: ");
  snprintf(suffix, sizeof suffix, " (%s of the thread's %s)", end, total);
  fprintf(out, "%s%s%s\n", prefix,
          fit(c->s->funcs[nodes[c->hot_end].func].pretty, c->o->width, prefix, suffix, name,
              sizeof name),
          suffix);
  snprintf(prefix, sizeof prefix, "  most %s Exclusive on it: ", kind);
  snprintf(suffix, sizeof suffix, " (%s)", excl);
  fprintf(out, "%s%s%s\n", prefix,
          fit(c->s->funcs[nodes[c->hot_excl].func].pretty, c->o->width, prefix, suffix, name,
              sizeof name),
          suffix);
}

void ip_view_tree(FILE *out, const ip_session *s, const ip_view_opts *o) {
  for (size_t i = 0; i < s->n_threads; i++) {
    const ip_thread *th = &s->threads[i];
    if (!ip_selected_thread(s, &o->sel, th) || th->nodes[0].first_child == IP_NO_NODE)
      continue;
    char name[1024];
    fprintf(out, "thread %s:\n", ip_thread_title(s, (uint32_t)i, name, sizeof name));
    ip_ttable t;
    ip_vtable v;
    tree_ctx c = {s, th, o, &v, &t, 0, 0, 0};
    if (o->latency) {
      ip_tt_init(&t, 7);
      ip_view_latency_titles(&t);
      ip_tt_add(&t, "Call path");
    } else {
      ip_vtable_init(&v, s, o, IP_BY_FUNCTION, 0, "Call path");
    }
    emit(&c, 0, 0, 1);
    if (o->latency) {
      ip_tt_print_fit(&t, out, 2, o->width);
      ip_tt_free(&t);
    } else {
      ip_vtable_print(&v, out, 2);
      ip_vtable_free(&v);
    }
    hot_line(out, &c);
    fputc('\n', out);
  }
}
