/* export/speedscope.c - `inclprof export --format speedscope`: speedscope's
 * file format (https://www.speedscope.app/file-format-schema.json).  First a
 * sampled profile of the selected threads' merged call tree (one sample per
 * call path, weighted by its Exclusive value, so widths are Inclusive), then
 * one evented profile per thread: every call's exact open and close, in ns
 * after the session start (--min-duration and --time-range bound them; the
 * sampled profile always holds every call path).  The evented profiles keep
 * the longest calls that fit in IP_SPEEDSCOPE_DEFAULT_MAX_SIZE (or
 * --max-size / --max-events; export/timeline_budget.h), and the file opens
 * on the busiest thread's: its exact timeline, not the merged profile. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/call_log.h"
#include "export/timeline_budget.h"
#include "export/exporter.h"
#include "export/json.h"
#include "export/tree.h"
#include "util/util.h"

/* A file speedscope opens in a browser tab (426 MB of 10 M calls did not). */
#define IP_SPEEDSCOPE_DEFAULT_MAX_SIZE (128ull << 20)

typedef struct speedscope {
  const ip_session *s;
  FILE *out;
  ip_timeline_budget *tb;
  uint32_t *frame_of; /* func -> frame index, UINT32_MAX before its first use */
  uint32_t *frames;   /* frame index -> func */
  size_t n_frames;
  ip_export_value value;
  const char *sep; /* before the next array element */
} speedscope;

static uint32_t frame(speedscope *x, uint32_t func) {
  if (func >= x->s->n_funcs)
    func = (uint32_t)x->s->n_funcs; /* the one slot for an unknown function */
  if (x->frame_of[func] == UINT32_MAX) {
    x->frames[x->n_frames] = func;
    x->frame_of[func] = (uint32_t)x->n_frames++;
  }
  return x->frame_of[func];
}

static uint64_t value_of(ip_export_value k, const ip_values *v) {
  return k == IP_VALUE_APPLICATION ? v->app_excl : k == IP_VALUE_SAMPLES ? v->smp_excl : v->el_excl;
}

static void put_sample(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  speedscope *x = ctx;
  if (!value_of(x->value, &v->nodes[path[depth - 1]].v))
    return;
  fputs(x->sep, x->out);
  x->sep = ",";
  for (size_t d = 0; d < depth; d++)
    fprintf(x->out, "%c%" PRIu32, d ? ',' : '[', frame(x, v->nodes[path[d]].func));
  putc(']', x->out);
}

static void put_weight(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth) {
  speedscope *x = ctx;
  uint64_t w = value_of(x->value, &v->nodes[path[depth - 1]].v);
  if (!w)
    return;
  fprintf(x->out, "%s%" PRIu64, x->sep, w);
  x->sep = ",";
}

static void put_sampled(speedscope *x, const ip_export_opts *o) {
  ip_export_trees trees;
  ip_export_trees_build(&trees, x->s, 1, &o->sel);
  uint64_t total = 0;
  for (size_t i = 0; i < trees.n_views; i++)
    for (size_t n = 1; n < trees.views[i].n_nodes; n++)
      total += value_of(x->value, &trees.views[i].nodes[n].v);
  static const char *const names[] = {"Elapsed", "Application", "samples"};
  fprintf(x->out,
          "{\"type\":\"sampled\",\"name\":\"all threads: %s\",\"unit\":\"%s\","
          "\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[",
          names[x->value], x->value == IP_VALUE_SAMPLES ? "none" : "nanoseconds", total);
  x->sep = "";
  for (size_t i = 0; i < trees.n_views; i++)
    ip_tree_walk(&trees.views[i], put_sample, x);
  fputs("],\"weights\":[", x->out);
  x->sep = "";
  for (size_t i = 0; i < trees.n_views; i++)
    ip_tree_walk(&trees.views[i], put_weight, x);
  fputs("]}", x->out);
  ip_export_trees_free(&trees);
}

/* ,\n{"type":"O","frame":F,"at":T} (the first event without ",\n") */
#define EVENT_TYPE  "{\"type\":\""
#define EVENT_FRAME "\",\"frame\":"
#define EVENT_AT    ",\"at\":"

static void put_event(speedscope *x, char type, const ip_logged_call *c, uint64_t at) {
  char b[96], *p = b;
  size_t sep = strlen(x->sep);
  memcpy(p, x->sep, sep);
  p += sep;
  memcpy(p, EVENT_TYPE, sizeof EVENT_TYPE - 1);
  p += sizeof EVENT_TYPE - 1;
  *p++ = type;
  memcpy(p, EVENT_FRAME, sizeof EVENT_FRAME - 1);
  p = ip_json_u64(p + sizeof EVENT_FRAME - 1, frame(x, c->func));
  memcpy(p, EVENT_AT, sizeof EVENT_AT - 1);
  p = ip_json_u64(p + sizeof EVENT_AT - 1, at);
  *p++ = '}';
  fwrite(b, 1, (size_t)(p - b), x->out);
  x->sep = ",\n";
}

static void on_open(void *ctx, const ip_logged_call *c) { put_event(ctx, 'O', c, c->start_ns); }
static void on_close(void *ctx, const ip_logged_call *c) {
  put_event(ctx, 'C', c, c->start_ns + c->dur_ns);
}

/* ,\n{"type":"O","frame":F,"at":T} and its close */
static uint32_t call_size(const ip_session *s, const ip_thread *t, uint32_t func, uint64_t start_ns,
                          uint64_t dur_ns) {
  (void)s;
  (void)t;
  return 2 * (2 + 20 + ip_json_digits(func) + 6 + 1) + ip_json_digits(start_ns) +
         ip_json_digits(start_ns + dur_ns);
}

/* Bytes of the file besides the evented profiles' events: the frames (at
 * most every function's name and file), the sampled profile's samples and
 * weights (at most a path and a number per call path), and the rest. */
static uint64_t fixed_size(const ip_session *s) {
  uint64_t n = 4096;
  for (size_t i = 0; i < s->n_funcs; i++)
    n += 48 + strlen(s->funcs[i].pretty ? s->funcs[i].pretty : s->funcs[i].name) +
         (s->funcs[i].file ? strlen(s->funcs[i].file) : 0);
  for (size_t t = 0; t < s->n_threads; t++)
    n += 160 + (uint64_t)s->threads[t].n_nodes * 32;
  return n;
}

static void put_evented(speedscope *x, size_t t) {
  const ip_thread *th = &x->s->threads[t];
  char label[96];
  ip_thread_label(th, label, sizeof label);
  fputs(",\n{\"type\":\"evented\",\"name\":", x->out);
  ip_json_string(x->out, label);
  fprintf(x->out,
          ",\"unit\":\"nanoseconds\",\"startValue\":%" PRIu64 ",\"endValue\":%" PRIu64
          ",\"events\":[\n",
          th->start_ns, th->end_ns);
  x->sep = "";
  ip_timeline_fn fn = {x, on_open, on_close};
  ip_timeline_budget_replay(x->tb, t, &fn);
  fputs("]}", x->out);
}

static void put_frames(speedscope *x) {
  fputs("],\n\"shared\":{\"frames\":[", x->out);
  for (size_t i = 0; i < x->n_frames; i++) {
    const ip_func *f = x->frames[i] < x->s->n_funcs ? &x->s->funcs[x->frames[i]] : NULL;
    fputs(i ? ",\n{\"name\":" : "\n{\"name\":", x->out);
    ip_json_string(x->out, !f ? "?" : f->pretty && *f->pretty ? f->pretty : f->name);
    if (f && f->file && *f->file) {
      fputs(",\"file\":", x->out);
      ip_json_string(x->out, f->file);
      fprintf(x->out, ",\"line\":%" PRIu32, f->line);
    }
    putc('}', x->out);
  }
  fputs("]}}\n", x->out);
}

static const ip_call_visitor *begin_speedscope(ip_export_job *job) {
  return ip_timeline_budget_begin(job, "speedscope", IP_SPEEDSCOPE_DEFAULT_MAX_SIZE, call_size);
}

/* The profile speedscope opens: the evented profile of the thread with the
 * most Elapsed time among those with calls (profile 0 is the merged one). */
static size_t busiest_profile(const ip_session *s, const ip_call_log *log) {
  size_t index = 0, at = 0;
  uint64_t most = 0;
  for (size_t t = 0; t < s->n_threads; t++) {
    if (!ip_call_log_count(log, t))
      continue;
    at++;
    if (s->threads[t].total.el_incl > most || index == 0) {
      most = s->threads[t].total.el_incl;
      index = at;
    }
  }
  return index;
}

static int write_speedscope(ip_export_job *job, const ip_session *s) {
  ip_timeline_budget *tb = job->stream;
  uint64_t fixed = fixed_size(s);
  ip_timeline_budget_plan(tb, s, fixed);
  speedscope x = {.s = s, .out = job->out, .value = job->opts->value, .tb = tb};
  x.frame_of = ip_must_realloc(NULL, s->n_funcs + 1, sizeof *x.frame_of);
  x.frames = ip_must_realloc(NULL, s->n_funcs + 1, sizeof *x.frames);
  for (size_t i = 0; i <= s->n_funcs; i++)
    x.frame_of[i] = UINT32_MAX;
  fprintf(job->out,
          "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
          "\"exporter\":\"inclprof\",\"name\":\"inclprof\",\"activeProfileIndex\":%zu,"
          "\"profiles\":[\n",
          busiest_profile(s, tb->log));
  put_sampled(&x, job->opts);
  for (size_t t = 0; t < s->n_threads; t++)
    if (ip_call_log_count(tb->log, t))
      put_evented(&x, t);
  put_frames(&x);
  free(x.frame_of);
  free(x.frames);
  ip_timeline_budget_report(tb, stderr, fixed);
  ip_timeline_budget_discard(job);
  return 0;
}

const ip_exporter ip_exporter_speedscope = {
    .name = "speedscope",
    .readers = "speedscope",
    .default_output = "inclprof.speedscope.json",
    .options = IP_EXOPT_VALUE | IP_EXOPT_MIN_DURATION | IP_EXOPT_TIME_RANGE | IP_EXOPT_SLOWEST |
               IP_EXOPT_SLOWEST_CALLS | IP_EXOPT_MAX_EVENTS | IP_EXOPT_MAX_SIZE,
    .begin = begin_speedscope,
    .discard = ip_timeline_budget_discard,
    .write = write_speedscope,
};
