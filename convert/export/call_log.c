/* export/call_log.c - the calls of the selected threads, kept per thread and
 * replayed as nested opens and closes in time order (see export/call_log.h). */
#include "export/call_log.h"

#include <stdlib.h>

#include "util/must_alloc.h"

typedef struct thread_calls {
  ip_logged_call *calls;
  size_t n, cap;
} thread_calls;

struct ip_call_log {
  const ip_export_opts *o;
  ip_call_visitor visitor;
  thread_calls *threads; /* by thread index of the session */
  size_t n_threads;
};

static void on_call(void *ctx, const ip_session *s, const ip_thread *t, uint32_t func,
                    uint32_t depth, uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns) {
  ip_call_log *log = ctx;
  if (dur_ns < log->o->min_duration_ns || !ip_selected_thread(s, &log->o->sel, t) ||
      !ip_selected_call(&log->o->sel, start_ns, dur_ns))
    return;
  size_t k = (size_t)(t - s->threads);
  ip_must_grow((void **)&log->threads, &log->n_threads, k + 1, sizeof *log->threads);
  thread_calls *tc = &log->threads[k];
  ip_must_grow((void **)&tc->calls, &tc->cap, tc->n + 1, sizeof *tc->calls);
  tc->calls[tc->n] = (ip_logged_call){start_ns, dur_ns, app_ns, tc->n, func, depth};
  tc->n++;
}

ip_call_log *ip_call_log_new(const ip_export_opts *o) {
  ip_call_log *log = ip_must_calloc(1, sizeof *log);
  log->o = o;
  log->visitor.ctx = log;
  log->visitor.on_call = on_call;
  return log;
}

const ip_call_visitor *ip_call_log_visitor(ip_call_log *log) { return &log->visitor; }

void ip_call_log_free(ip_call_log *log) {
  if (!log)
    return;
  for (size_t i = 0; i < log->n_threads; i++)
    free(log->threads[i].calls);
  free(log->threads);
  free(log);
}

size_t ip_call_log_count(const ip_call_log *log, size_t t) {
  return t < log->n_threads ? log->threads[t].n : 0;
}

/* Begin order: earlier start first; at the same start the caller (smaller
 * depth) first; calls of equal start and depth (empty siblings) in the order
 * they ended, which is the order they ran. */
static int by_begin(const void *a, const void *b) {
  const ip_logged_call *x = a, *y = b;
  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  if (x->depth != y->depth)
    return x->depth < y->depth ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void ip_call_log_replay(ip_call_log *log, size_t t, const ip_timeline_fn *fn) {
  if (t >= log->n_threads || !log->threads[t].n)
    return;
  thread_calls *tc = &log->threads[t];
  ip_logged_call *k = tc->calls;
  qsort(k, tc->n, sizeof *k, by_begin);
  /* The open calls, outermost first: a call closes when one at its depth or
   * above begins (depth says the nesting exactly, whatever the times). */
  size_t *open = NULL, n_open = 0, cap = 0;
  for (size_t i = 0; i < tc->n; i++) {
    while (n_open && k[open[n_open - 1]].depth >= k[i].depth)
      fn->close(fn->ctx, &k[open[--n_open]]);
    fn->open(fn->ctx, &k[i]);
    ip_must_grow((void **)&open, &cap, n_open + 1, sizeof *open);
    open[n_open++] = i;
  }
  while (n_open)
    fn->close(fn->ctx, &k[open[--n_open]]);
  free(open);
  free(k);
  *tc = (thread_calls){0};
}
