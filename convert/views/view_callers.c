/* views/view_callers.c - callers or callees of one function, from the call trees:
 * for each caller, the calls it made to the function and the function's time
 * under it; for each callee, its calls and time when called by the function.
 * A path nested in another path of the same function (recursion) adds its
 * calls but not its time again, so no time is counted twice.  The rows are
 * summed thread by thread, so a load can add each file's threads as it is
 * read and free their trees (ip_callers_file). */
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

static ip_values *row_of(ip_callers *c, const ip_session *s, uint32_t func) {
  if (func >= c->n_rows) {
    size_t old = c->n_rows;
    ip_must_grow((void **)&c->rows, &c->n_rows, s->n_funcs, sizeof *c->rows);
    memset(c->rows + old, 0, (c->n_rows - old) * sizeof *c->rows);
  }
  return &c->rows[func];
}

static void add_thread(ip_callers *c, const ip_session *s, const ip_thread *th) {
  for (uint32_t n = 1; n < th->n_nodes; n++) {
    const ip_func *f = &s->funcs[th->nodes[n].func];
    if (!ip_func_named(f, c->fn))
      continue;
    c->found = 1;
    if (!c->callees) {
      uint32_t p = th->nodes[n].parent;
      add(p ? row_of(c, s, th->nodes[p].func) : &c->start, th->nodes, n);
      continue;
    }
    for (uint32_t k = th->nodes[n].first_child; k != IP_NO_NODE; k = th->nodes[k].next_sibling)
      add(row_of(c, s, th->nodes[k].func), th->nodes, k);
  }
  if (c->callees)
    ip_call_lines_add(&c->lines, s, th, c->fn);
}

void ip_callers_init(ip_callers *c, const char *fn, int callees, const ip_selection *sel) {
  memset(c, 0, sizeof *c);
  c->fn = fn;
  c->callees = callees;
  c->sel = sel;
}

void ip_callers_file(void *ctx, ip_session *s, size_t first_thread) {
  ip_callers *c = ctx;
  for (size_t i = first_thread; i < s->n_threads; i++)
    if (ip_selected_thread(s, c->sel, &s->threads[i]))
      add_thread(c, s, &s->threads[i]);
}

void ip_callers_free(ip_callers *c) {
  free(c->rows);
  free(c->lines.v);
  memset(c, 0, sizeof *c);
}

int ip_callers_print(FILE *out, const ip_session *s, const ip_view_opts *o, ip_callers *c) {
  int found = c->found, callees = c->callees;
  const char *fn = c->fn;
  ip_values *rows = ip_must_calloc(s->n_funcs + 1, sizeof *rows);
  if (c->n_rows)
    memcpy(rows, c->rows, (c->n_rows < s->n_funcs ? c->n_rows : s->n_funcs) * sizeof *rows);
  rows[s->n_funcs] = c->start; /* the row of "thread start" (no caller) */
  ip_call_lines lines = c->lines;
  c->lines = (ip_call_lines){0};
  ip_callers_free(c);
  if (!found) {
    free(rows);
    free(lines.v);
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
    ip_view_call_lines(out, s, o, fn, &lines);
  else
    free(lines.v);
  return 0;
}

int ip_view_callers(FILE *out, const ip_session *s, const ip_view_opts *o, const char *fn,
                    int callees) {
  ip_callers c;
  ip_callers_init(&c, fn, callees, &o->sel);
  for (size_t i = 0; i < s->n_threads; i++)
    if (ip_selected_thread(s, &o->sel, &s->threads[i]))
      add_thread(&c, s, &s->threads[i]);
  return ip_callers_print(out, s, o, &c);
}
