/* views/view_tree.c - the report's call tree: per thread, one line per call path
 * with that path's values (a function called from two places appears twice),
 * children sorted like the table, indented by depth. */
#include <stdlib.h>

#include "util/util.h"
#include "views/views.h"

typedef struct tree_ctx {
  const ip_session *s;
  const ip_thread *th;
  const ip_view_opts *o;
  ip_ttable *t;
} tree_ctx;

static int by_elapsed(const void *a, const void *b, void *c) {
  const ip_node *nodes = c;
  uint64_t x = nodes[*(const uint32_t *)a].v.el_incl, y = nodes[*(const uint32_t *)b].v.el_incl;
  return (x < y) - (x > y);
}

#define MAX_SHOWN_DEPTH 200

static void emit(tree_ctx *c, uint32_t node, int depth) {
  const ip_node *nodes = c->th->nodes;
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
  qsort_r(kids, n, sizeof *kids, by_elapsed, (void *)nodes);
  if (c->o->top && c->o->top < n)
    n = c->o->top;
  for (size_t i = 0; i < n; i++)
    emit(c, kids[i], depth + 1);
  free(kids);
}

void ip_view_tree(FILE *out, const ip_session *s, const ip_view_opts *o) {
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
    tree_ctx c = {s, th, o, &t};
    emit(&c, 0, 0);
    ip_tt_print_fit(&t, out, 2, o->width);
    ip_tt_free(&t);
    fputc('\n', out);
  }
}
