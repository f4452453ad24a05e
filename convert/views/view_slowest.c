/* views/view_slowest.c - `inclprof report --slowest FN`: FN's slowest calls,
 * longest first, each with when and on which thread it ran, its Elapsed and
 * Application time and (kevents) its wait breakdown, then where its time
 * went: the call paths inside it, each with its calls, Elapsed Inclusive and
 * Exclusive, Application Inclusive and the waits, the longest first; paths
 * under 0.5 % of the call are counted, not shown. */
#include <stdlib.h>

#include "util/util.h"
#include "views/views.h"

/* A path under this share of the slow call (in thousandths) is not shown. */
#define HIDE_BELOW_PERMILLE 5

typedef struct slow_ctx {
  const ip_session *s;
  const ip_thread *th;
  const ip_slow_call *c;
  const uint32_t *slot; /* node -> 1 + index into c->inner_v, 0 none */
  int waits;
  ip_ttable *t;
  size_t hidden;
} slow_ctx;

static void time_cell(ip_ttable *t, uint64_t ns) {
  char b[32];
  ip_fmt_ns(b, sizeof b, ns);
  ip_tt_add(t, "%s", b);
}

static const ip_values *inner(const slow_ctx *x, uint32_t node) {
  return x->slot[node] ? &x->c->inner_v[x->slot[node] - 1] : NULL;
}

static int longer(const void *a, const void *b, void *ctx) {
  const slow_ctx *x = ctx;
  uint64_t p = inner(x, *(const uint32_t *)a)->el_incl, q = inner(x, *(const uint32_t *)b)->el_incl;
  return (p < q) - (p > q);
}

static void row(slow_ctx *x, uint32_t node, int depth, const ip_values *v, uint64_t excl) {
  ip_tt_add(x->t, "%llu", (unsigned long long)v->calls);
  time_cell(x->t, v->el_incl);
  time_cell(x->t, excl);
  time_cell(x->t, v->app_incl);
  if (x->waits) {
    time_cell(x->t, v->wait_incl[IP_W_PREEMPTED]);
    time_cell(x->t, v->wait_incl[IP_W_BLOCKED]);
    time_cell(x->t, v->wait_incl[IP_W_SYSCALL]);
    time_cell(x->t, v->wait_incl[IP_W_FAULT]);
  }
  ip_tt_add_level(x->t, (unsigned)depth, "%s", x->s->funcs[x->th->nodes[node].func].pretty);
}

/* The paths inside the slow call below node, the longest first. */
static void emit(slow_ctx *x, uint32_t node, int depth, const ip_values *v) {
  const ip_node *nodes = x->th->nodes;
  size_t n = 0;
  uint64_t kids_el = 0;
  for (uint32_t k = nodes[node].first_child; k != IP_NO_NODE; k = nodes[k].next_sibling)
    if (inner(x, k)) {
      n++;
      kids_el += inner(x, k)->el_incl;
    }
  row(x, node, depth, v, v->el_incl > kids_el ? v->el_incl - kids_el : 0);
  uint32_t *kids = ip_must_calloc(n ? n : 1, sizeof *kids);
  n = 0;
  for (uint32_t k = nodes[node].first_child; k != IP_NO_NODE; k = nodes[k].next_sibling)
    if (inner(x, k))
      kids[n++] = k;
  qsort_r(kids, n, sizeof *kids, longer, x);
  for (size_t i = 0; i < n; i++) {
    const ip_values *kv = inner(x, kids[i]);
    if (kv->el_incl * 1000 < x->c->el_ns * HIDE_BELOW_PERMILLE) {
      x->hidden += n - i;
      break;
    }
    emit(x, kids[i], depth + 1, kv);
  }
  free(kids);
}

static void header_line(FILE *out, const ip_session *s, const ip_slow_call *c, size_t rank,
                        int waits) {
  char el[32], app[32], at[32], thread[512];
  ip_fmt_ns(el, sizeof el, c->el_ns);
  ip_fmt_ns(app, sizeof app, c->app_ns);
  ip_fmt_ns(at, sizeof at, c->start_ns);
  fprintf(out, "#%zu  %s Elapsed, %s Application, started at %s on thread %s\n", rank, el, app, at,
          ip_row_name(s, IP_BY_THREAD, c->thread, thread, sizeof thread));
  if (waits) {
    static const char *const names[] = {"preempted", "blocked", "system calls", "page faults"};
    fputs("    waits:", out);
    for (int k = 0; k < 4; k++) {
      ip_fmt_ns(el, sizeof el, c->wait[k]);
      fprintf(out, "%s %s %s", k ? "," : "", names[k], el);
    }
    fprintf(out, " (%llu faults)\n", (unsigned long long)c->wait[IP_W_FAULTS]);
  }
}

void ip_view_slowest(FILE *out, const ip_session *s, const ip_view_opts *o, const ip_slowest *w) {
  int waits = ip_session_has_wait(s);
  fprintf(out,
          "slowest: the %zu longest of %llu calls of %s by %s Inclusive time, longest first\n\n",
          w->n, (unsigned long long)w->fn_calls, w->fn, w->by_app ? "Application" : "Elapsed");
  for (size_t i = 0; i < w->n; i++) {
    const ip_slow_call *c = &w->calls[i];
    header_line(out, s, c, i + 1, waits);
    if (c->thread >= s->n_threads || c->node == IP_NO_NODE) {
      fputs("    (its calls were not found again: the traces changed between the two reads)\n\n",
            out);
      continue;
    }
    const ip_thread *th = &s->threads[c->thread];
    uint32_t *slot = ip_must_calloc(th->n_nodes, sizeof *slot);
    for (size_t k = 0; k < c->n_inner; k++)
      if (c->inner_node[k] < th->n_nodes)
        slot[c->inner_node[k]] = (uint32_t)k + 1;
    ip_ttable t;
    ip_tt_init(&t, waits ? 9 : 5);
    ip_tt_add(&t, "Calls");
    ip_tt_add(&t, "El Incl");
    ip_tt_add(&t, "El Excl");
    ip_tt_add(&t, "App Incl");
    if (waits) {
      ip_tt_add(&t, "Preempted");
      ip_tt_add(&t, "Blocked");
      ip_tt_add(&t, "Syscalls");
      ip_tt_add(&t, "Faults");
    }
    ip_tt_add(&t, "Call path");
    ip_values self = {.calls = 1, .el_incl = c->el_ns, .app_incl = c->app_ns};
    for (int k = 0; k < IP_WAIT_N; k++)
      self.wait_incl[k] = c->wait[k];
    slow_ctx x = {s, th, c, slot, waits, &t, 0};
    emit(&x, c->node, 0, &self);
    ip_tt_print_fit(&t, out, 4, o->width);
    if (x.hidden)
      fprintf(out, "    (%zu call path%s under 0.5 %% of this call not shown)\n", x.hidden,
              x.hidden == 1 ? "" : "s");
    fputc('\n', out);
    ip_tt_free(&t);
    free(slot);
  }
}
