/* views/view_operations.c - `inclprof report --operations`: per coroutine,
 * its operations (model/operations.h): how many, the body's runs, the total
 * and the distribution of their latency (ramp to final suspension), the time
 * their runs took and the time they were suspended. */
#include <string.h>

#include "util/util.h"
#include "views/views.h"

static void time_cell(ip_ttable *t, uint64_t ns) {
  char b[32];
  ip_fmt_ns(b, sizeof b, ns);
  ip_tt_add(t, "%s", b);
}

int ip_view_operations(FILE *out, const ip_session *s, const ip_view_opts *o) {
  ip_operations ops;
  ip_operations_build(s, &ops);
  if (!ops.n_coro) {
    ip_operations_free(&ops);
    return -1;
  }
  fprintf(out, "operations: one per coroutine frame, from its ramp's start to the end of its "
               "body's last run (the final suspension), across threads; Ran: its runs' Elapsed "
               "Inclusive time (the probe cost removed); Suspended: the clock time between its "
               "runs; Latency = Ran + Suspended (quantiles within 0.8 %%, Max exact)\n\n");
  ip_ttable t;
  ip_tt_init(&t, 10);
  for (const char *q = "Operations\0Runs\0Latency\0p50\0p90\0p99\0Max\0Ran\0Suspended\0Coroutine\0";
       *q; q += strlen(q) + 1)
    ip_tt_add(&t, "%s", q);
  uint64_t unstarted = 0;
  for (size_t i = 0; i < ops.n_coro && (!o->top || i < o->top); i++) {
    const ip_coro_ops *c = &ops.by_coro[i];
    ip_tt_add(&t, "%llu", (unsigned long long)c->n);
    ip_tt_add(&t, "%llu", (unsigned long long)c->runs);
    time_cell(&t, c->latency_ns);
    time_cell(&t, ip_lat_quantile(&c->latency, 0.50));
    time_cell(&t, ip_lat_quantile(&c->latency, 0.90));
    time_cell(&t, ip_lat_quantile(&c->latency, 0.99));
    time_cell(&t, c->latency.max);
    time_cell(&t, c->ran_ns);
    time_cell(&t, c->suspended_ns);
    const char *name = s->funcs[c->func].pretty;
    ip_tt_add(&t, "%.*s", (int)ip_coroutine_name_len(name), name);
    unstarted += c->unstarted;
  }
  ip_tt_print_fit(&t, out, 0, o->width);
  ip_tt_free(&t);
  if (unstarted)
    fprintf(out,
            "\n%llu operations began before the trace, or in a ramp without probes: each one's "
            "latency starts at its first run\n",
            (unsigned long long)unstarted);
  if (ops.runs_without_frame)
    fprintf(out,
            "\n%llu runs of coroutine bodies name no frame (a trace before format 1.2, or a "
            "batch's frames lost): no operation holds them\n",
            (unsigned long long)ops.runs_without_frame);
  ip_operations_free(&ops);
  return 0;
}
