/* export/timeline_budget.c - the size bound of the timeline exports (see
 * export/timeline_budget.h).  The replay sizes every accepted call as it
 * logs it; the plan is made once the sizes are known; the writer asks, call
 * by call in time order, whether to write it.  Calls of the plan's cut-off
 * rank are kept while its quota lasts, in the order they are written. */
#include "export/timeline_budget.h"

#include <inttypes.h>
#include <stdlib.h>

#include "util/util.h"

static int accepted(const ip_export_opts *o, const ip_session *s, const ip_thread *t,
                    uint32_t depth, uint64_t start, uint64_t dur) {
  const ip_selection *sel = &o->sel;
  if (!(sel->has_tid | sel->has_pid | sel->has_range) && !sel->n_windows) /* no selection */
    return dur >= o->min_duration_ns;
  return dur >= o->min_duration_ns && ip_selected_thread(s, &o->sel, t) &&
         ip_selected_call(&o->sel, (uint32_t)(t - s->threads), depth, start, dur);
}

static uint64_t max_size(const ip_timeline_budget *tb) {
  return tb->o->max_size == UINT64_MAX ? 0 : tb->o->max_size ? tb->o->max_size : tb->default_max;
}

/* Whether calls calls of bytes bytes pass the limits (of max bytes). */
static int over(const ip_timeline_budget *tb, uint64_t calls, uint64_t bytes, uint64_t max) {
  return (tb->o->max_events && calls > tb->o->max_events) || (max && bytes > max);
}

typedef struct binning {
  ip_timeline_budget *tb;
  const ip_session *s;
} binning;

static void bin_call(void *ctx, size_t thread, const ip_logged_call *c) {
  binning *b = ctx;
  ip_budget_add(&b->tb->budget, ip_budget_rank(c->dur_ns, c->depth),
                b->tb->size(b->s, &b->s->threads[thread], c->func, c->start_ns, c->dur_ns));
}

/* The budget no longer deferred: the bins of every call logged. */
static void bin_logged(ip_timeline_budget *tb, const ip_session *s) {
  uint64_t calls = tb->budget.calls, bytes = tb->budget.bytes;
  tb->budget.deferred = 0;
  tb->budget.calls = tb->budget.bytes = 0;
  binning b = {tb, s};
  ip_call_log_each(tb->log, bin_call, &b);
  if (tb->budget.calls != calls || tb->budget.bytes != bytes) {
    fprintf(stderr,
            "inclprof export: %s: the calls logged are not those counted (%" PRIu64 " of %" PRIu64
            "): an internal error, please report it\n",
            tb->format, tb->budget.calls, calls);
    exit(1);
  }
}

/* The floor is found again after this many calls, or four per bin (finding
 * it sorts the bins). */
#define FLOOR_EVERY ((uint64_t)1 << 18)

static void on_call(void *ctx, const ip_session *s, const ip_thread *t, uint32_t func,
                    uint32_t depth, uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns) {
  ip_timeline_budget *tb = ctx;
  if (!accepted(tb->o, s, t, depth, start_ns, dur_ns)) {
    ip_call_log_skip(tb->log, s, t, depth); /* nor would the log keep it */
    return;
  }
  uint64_t rank = ip_budget_rank(dur_ns, depth);
  uint32_t bytes = tb->size(s, t, func, start_ns, dur_ns);
  if (tb->budget.deferred) {
    if (tb->budget.calls < tb->fit_calls && tb->budget.bytes + bytes <= tb->fit_bytes) {
      ip_budget_count(&tb->budget, rank, bytes);
      ip_call_log_add(tb->log, s, t, func, depth, start_ns, dur_ns, app_ns);
      return; /* every call so far is kept: no floor */
    }
    bin_logged(tb, s);
  }
  ip_budget_add(&tb->budget, rank, bytes);
  if (tb->budget.calls >= tb->next_floor) {
    tb->floor = ip_budget_floor(&tb->budget, tb->o->max_events, max_size(tb));
    tb->next_floor = tb->budget.calls +
                     (FLOOR_EVERY > 4 * tb->budget.n_bins ? FLOOR_EVERY : 4 * tb->budget.n_bins);
  }
  if (rank < tb->floor) { /* never written: neither logged nor sorted */
    tb->left_out++;
    ip_call_log_drop(tb->log, s, t, depth);
    return;
  }
  ip_call_log_add(tb->log, s, t, func, depth, start_ns, dur_ns, app_ns);
}

void ip_timeline_budget_init(ip_timeline_budget *tb, const char *format, const ip_export_opts *o,
                             uint64_t default_max, ip_call_size_fn size) {
  *tb = (ip_timeline_budget){.format = format, .o = o, .default_max = default_max, .size = size};
  tb->log = ip_call_log_new(o, IP_CALL_LOG_MEMORY_CALLS);
  tb->visitor.ctx = tb;
  tb->visitor.on_call = on_call;
  tb->cut.all = 1;
  tb->budget.deferred = 1;
  tb->budget.min_rank = UINT64_MAX;
  uint64_t max = max_size(tb);
  tb->fit_calls = o->max_events ? o->max_events : UINT64_MAX;
  tb->fit_bytes = max ? max : UINT64_MAX;
}

void ip_timeline_budget_plan(ip_timeline_budget *tb, const ip_session *s, uint64_t fixed) {
  uint64_t max = max_size(tb);
  if (!max && !tb->o->max_events)
    return;
  if (tb->budget.deferred && over(tb, tb->budget.calls, tb->budget.bytes,
                                  !max          ? 0
                                  : max > fixed ? max - fixed
                                                : 1))
    bin_logged(tb, s);
  ip_budget_plan(&tb->budget, tb->o->max_events,
                 !max          ? 0
                 : max > fixed ? max - fixed
                               : 1,
                 &tb->cut);
}

static int keep_open(ip_timeline_budget *tb, const ip_logged_call *c) {
  int keep = ip_budget_keep(&tb->cut, ip_budget_rank(c->dur_ns, c->depth));
  /* a call whose caller was left out goes too (its rank cannot be higher) */
  if (keep && tb->depth && !tb->keep_stack[tb->depth - 1])
    keep = 0;
  if (tb->depth == tb->cap)
    ip_must_grow((void **)&tb->keep_stack, &tb->cap, tb->depth + 1, 1);
  tb->keep_stack[tb->depth++] = (uint8_t)keep;
  tb->left_out += !keep;
  return keep;
}

static int keep_close(ip_timeline_budget *tb) {
  return tb->depth ? tb->keep_stack[--tb->depth] : 0;
}

typedef struct gate {
  ip_timeline_budget *tb;
  const ip_timeline_fn *fn;
} gate;

static void gate_open(void *ctx, const ip_logged_call *c) {
  gate *g = ctx;
  if (keep_open(g->tb, c))
    g->fn->open(g->fn->ctx, c);
}

static void gate_close(void *ctx, const ip_logged_call *c) {
  gate *g = ctx;
  if (keep_close(g->tb))
    g->fn->close(g->fn->ctx, c);
}

void ip_timeline_budget_replay(ip_timeline_budget *tb, size_t t, const ip_timeline_fn *fn) {
  if (tb->cut.all) { /* every call is written: no gate */
    ip_call_log_replay(tb->log, t, fn);
    return;
  }
  gate g = {tb, fn};
  ip_timeline_fn gated = {&g, gate_open, gate_close};
  ip_call_log_replay(tb->log, t, &gated);
}

void ip_timeline_budget_report(const ip_timeline_budget *tb, FILE *err, uint64_t fixed) {
  ip_budget_say(err, tb->format, &tb->budget, &tb->cut, fixed, max_size(tb), tb->o->max_size != 0,
                tb->o->max_events, tb->left_out);
}

const ip_call_visitor *ip_timeline_budget_begin(ip_export_job *job, const char *format,
                                                uint64_t default_max, ip_call_size_fn size) {
  ip_timeline_budget *tb = ip_must_calloc(1, sizeof *tb);
  ip_timeline_budget_init(tb, format, job->opts, default_max, size);
  job->stream = tb;
  return &tb->visitor;
}

void ip_timeline_budget_discard(ip_export_job *job) {
  ip_timeline_budget_free(job->stream);
  free(job->stream);
  job->stream = NULL;
}

void ip_timeline_budget_free(ip_timeline_budget *tb) {
  ip_call_log_free(tb->log);
  ip_budget_free(&tb->budget);
  free(tb->keep_stack);
  tb->log = NULL;
  tb->keep_stack = NULL;
}
