/* views/view_call_lines.c - report --callees FN, its call lines: per line of
 * FN that calls a callee with call-site probes, the calls made there and
 * their Elapsed and Application Inclusive time (two calls of one callee on
 * two lines are two rows).  Lines come from the plugin's call-line
 * descriptors; traces of older plugins have none, and calls of instrumented
 * callees (entry probes, no call-site probes) have no line. */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/util.h"
#include "views/views.h"

static int cmp_key(const void *a, const void *b) {
  const ip_call_line *x = a, *y = b;
  if (x->callee != y->callee)
    return x->callee < y->callee ? -1 : 1;
  return (x->site > y->site) - (x->site < y->site);
}

/* Most Elapsed time first, then by line. */
static int cmp_time(const void *a, const void *b, void *sv) {
  const ip_call_line *x = a, *y = b;
  const ip_session *s = sv;
  if (x->el != y->el)
    return x->el > y->el ? -1 : 1;
  const ip_site *p = &s->sites[x->site], *q = &s->sites[y->site];
  int c = strcmp(p->file, q->file);
  if (c)
    return c;
  return p->line != q->line ? (p->line < q->line ? -1 : 1) : cmp_key(a, b);
}

/* Calls of one callee on one line summed into one entry, sorted by them. */
static size_t merge_keys(ip_call_line *v, size_t n) {
  if (n)
    qsort(v, n, sizeof *v, cmp_key);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m && !cmp_key(&v[m - 1], &v[i])) {
      v[m - 1].calls += v[i].calls;
      v[m - 1].el += v[i].el;
      v[m - 1].app += v[i].app;
    } else {
      v[m++] = v[i];
    }
  }
  return m;
}

void ip_call_lines_add(ip_call_lines *c, const ip_session *s, const ip_thread *th, const char *fn) {
  size_t before = c->n;
  for (size_t k = 0; k < th->n_sites; k++) {
    const ip_site_values *sv = &th->sites[k];
    uint32_t parent = th->nodes[sv->node].parent;
    if (!parent || parent == IP_NO_NODE || !ip_func_named(&s->funcs[th->nodes[parent].func], fn))
      continue;
    ip_must_grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v);
    c->v[c->n++] =
        (ip_call_line){th->nodes[sv->node].func, sv->site, sv->calls, sv->el_incl, sv->app_incl};
  }
  if (c->n > 2 * before) /* what is kept stays bounded by the distinct callees and lines */
    c->n = merge_keys(c->v, c->n);
}

void ip_view_call_lines(FILE *out, const ip_session *s, const ip_view_opts *o, const char *fn,
                        ip_call_lines *c) {
  ip_call_line *v = c->v;
  size_t m = merge_keys(v, c->n);
  memset(c, 0, sizeof *c);
  if (!m) {
    free(v);
    return;
  }
  qsort_r(v, m, sizeof *v, cmp_time, (void *)s);
  if (o->top && o->top < m)
    m = o->top;
  fprintf(out, "\ncall lines of %s (calls with call-site probes, by the line they were made on)\n",
          fn);
  ip_ttable t;
  ip_tt_init(&t, 5);
  ip_tt_names(&t, 3, 0);
  ip_tt_add(&t, "Calls");
  ip_tt_add(&t, "El Incl");
  ip_tt_add(&t, "App Incl");
  ip_tt_add(&t, "Callee");
  ip_tt_add(&t, "Line");
  for (size_t i = 0; i < m; i++) {
    char el[32], app[32];
    ip_fmt_ns(el, sizeof el, v[i].el);
    ip_fmt_ns(app, sizeof app, v[i].app);
    ip_tt_add(&t, "%llu", (unsigned long long)v[i].calls);
    ip_tt_add(&t, "%s", el);
    ip_tt_add(&t, "%s", app);
    ip_tt_add(&t, "%s", s->funcs[v[i].callee].pretty);
    const char *file = strrchr(s->sites[v[i].site].file, '/');
    ip_tt_add(&t, "%s:%u", file ? file + 1 : s->sites[v[i].site].file, s->sites[v[i].site].line);
  }
  ip_tt_print_fit(&t, out, 2, o->width);
  ip_tt_free(&t);
  free(v);
}
