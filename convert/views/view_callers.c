/* views/view_callers.c - callers or callees of one function, from the call trees:
 * for each caller, the calls it made to the function and the function's time
 * under it; for each callee, its calls and time when called by the function.
 * A path nested in another path of the same function (recursion) adds its
 * calls but not its time again, so no time is counted twice. */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "views/views.h"

static int nested_in_same(const ip_node *nodes, uint32_t n) {
  for (uint32_t p = nodes[n].parent; p != IP_NO_NODE && p != 0; p = nodes[p].parent)
    if (nodes[p].func == nodes[n].func)
      return 1;
  return 0;
}

static void add(ip_values *to, const ip_node *nodes, uint32_t n) {
  ip_values v = nodes[n].v;
  if (nested_in_same(nodes, n)) {
    uint64_t calls = v.calls;
    memset(&v, 0, sizeof v);
    v.calls = calls;
  }
  ip_values_add(to, &v);
}

static void collect(const ip_session *s, const ip_view_opts *o, const char *fn, int callees,
                    ip_values *rows, int *found) {
  size_t root = s->n_funcs; /* the row of "thread start" (no caller) */
  for (size_t i = 0; i < s->n_threads; i++) {
    const ip_thread *th = &s->threads[i];
    if (!ip_selected_thread(s, &o->sel, th))
      continue;
    for (uint32_t n = 1; n < th->n_nodes; n++) {
      const ip_func *f = &s->funcs[th->nodes[n].func];
      if (!ip_func_named(f, fn))
        continue;
      *found = 1;
      if (!callees) {
        uint32_t p = th->nodes[n].parent;
        add(&rows[p ? th->nodes[p].func : root], th->nodes, n);
        continue;
      }
      for (uint32_t k = th->nodes[n].first_child; k != IP_NO_NODE; k = th->nodes[k].next_sibling)
        add(&rows[th->nodes[k].func], th->nodes, k);
    }
  }
}

int ip_view_callers(FILE *out, const ip_session *s, const ip_view_opts *o, const char *fn,
                    int callees) {
  ip_values *rows = ip_must_calloc(s->n_funcs + 1, sizeof *rows);
  int found = 0;
  collect(s, o, fn, callees, rows, &found);
  if (!found) {
    free(rows);
    return -1;
  }
  ip_row *list = ip_must_calloc(s->n_funcs + 1, sizeof *list);
  size_t n = 0;
  for (size_t k = 0; k < s->n_funcs; k++)
    if (rows[k].calls || rows[k].el_incl) {
      list[n].key = (uint32_t)k;
      list[n++].v = rows[k];
    }
  ip_rows_sort(s, IP_BY_FUNCTION, list, n, o->sort);
  if (o->top && o->top < n)
    n = o->top;
  if (rows[s->n_funcs].calls) { /* called by no function: last, as "<thread start>" */
    list[n].key = (uint32_t)s->n_funcs;
    list[n++].v = rows[s->n_funcs];
  }
  fprintf(out, "%s of %s (values: %s)\n", callees ? "callees" : "callers", fn,
          callees ? "each callee's, when called from it" : "its own, when called from each caller");
  ip_vtable v;
  ip_vtable_init(&v, s, o, IP_BY_FUNCTION, 0, callees ? "Callee" : "Caller");
  for (size_t i = 0; i < n; i++) {
    uint32_t k = list[i].key;
    ip_vtable_row(&v, &list[i].v, NULL, k == s->n_funcs ? UINT32_MAX : k, 0,
                  k == s->n_funcs ? "<thread start>" : s->funcs[k].pretty);
  }
  ip_vtable_print(&v, out, 2);
  ip_vtable_free(&v);
  free(list);
  free(rows);
  if (callees)
    ip_view_call_lines(out, s, o, fn);
  return 0;
}
