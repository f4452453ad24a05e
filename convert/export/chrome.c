/* export/chrome.c - Chrome Trace Event JSON: each completed call becomes an
 * "X" event, in the order the replay reported them; each coroutine operation
 * an async slice ("b" and "e" events of category "coroutine").  Times are
 * microseconds written as exact decimals of the nanosecond values, so calls
 * nest in the viewer exactly as they did in the program.  The one replay
 * sizes every accepted call's event and keeps the call in a spool
 * (export/call_spool.h); the export then writes, from the spool, the calls
 * that fit its bound (--max-size, by default IP_CHROME_DEFAULT_MAX_SIZE, or
 * --max-events; export/call_budget.h), the longest first.  A call's event is
 * sized by arithmetic (call_size) and written from digits and each
 * function's JSON name, escaped once: formatting is the export's cost, done
 * once per call kept. */
#include "export/chrome.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/call_budget.h"
#include "export/call_spool.h"
#include "export/json.h"
#include "util/util.h"

struct ip_chrome_writer {
  FILE *out; /* the document; while sizing the rest, a stream that only counts */
  char *buf; /* the calls' events not yet handed to out (CALLS_BUF bytes) */
  size_t buf_len;
  char **names; /* func -> its JSON string literal, made at first use */
  uint32_t *name_len;
  size_t n_names;
  const ip_export_opts *o;
  ip_call_visitor visitor;
  int streaming;       /* unbounded: each call written as the replay reports it */
  ip_spool *calls;     /* every accepted call (chrome_call, its waits), in replay order */
  uint64_t events;     /* events of any kind written (for the commas) */
  uint64_t fixed;      /* bytes of everything but the calls */
  ip_budget budget;    /* every accepted call's rank and size */
  ip_budget_cut cut;   /* the calls to write */
  uint64_t floor;      /* calls ranked lower cannot be kept (ip_budget_floor): not spooled */
  uint64_t next_floor; /* the number of calls at which floor is found again */
  uint64_t last_start; /* of the call spooled or read back last */
  uint64_t written, left_out;
  const ip_critical *crit; /* with wake edges: the flows and the critical-path track */
  ip_wake_flow *flows;
  size_t n_flows;
};

/* A call between the replay and the writing. */
typedef struct chrome_call {
  uint64_t start_ns, dur_ns, app_ns;
  uint32_t thread, func, depth, has_waits;
  uint64_t wait[IP_WAIT_N];
} chrome_call;

/* A call as the spool keeps it: its length in one byte, then varints of the
 * thread, the function, depth << 1 | has_waits, the start's difference to
 * the previous call's (zigzag), the duration, Elapsed - Application
 * (zigzag, mostly 0) and the waits: about 10 bytes where the call takes 40. */
enum { SPOOLED_MAX = 1 + 10 * (6 + IP_WAIT_N) };

static void spool_call(ip_spool *sp, const chrome_call *c, uint64_t *last_start) {
  uint8_t *b = ip_spool_room(sp, SPOOLED_MAX), *p = b + 1;
  p = ip_spool_put_varint(p, c->thread);
  p = ip_spool_put_varint(p, c->func);
  p = ip_spool_put_varint(p, (uint64_t)c->depth << 1 | c->has_waits);
  p = ip_spool_put_varint(p, ip_spool_zigzag(c->start_ns - *last_start));
  p = ip_spool_put_varint(p, c->dur_ns);
  p = ip_spool_put_varint(p, ip_spool_zigzag(c->dur_ns - c->app_ns));
  for (int k = 0; c->has_waits && k < IP_WAIT_N; k++)
    p = ip_spool_put_varint(p, c->wait[k]);
  *last_start = c->start_ns;
  b[0] = (uint8_t)(p - b - 1);
  ip_spool_commit(sp, (size_t)(p - b));
}

/* The next call of the spool into c: 1, or 0 at its end. */
static int unspool_call(ip_spool *sp, chrome_call *c, uint64_t *last_start) {
  const uint8_t *len = ip_spool_next(sp, 1), *p = len ? ip_spool_next(sp, *len) : NULL;
  if (!p)
    return 0;
  uint64_t v;
  p = ip_spool_get_varint(p, &v);
  c->thread = (uint32_t)v;
  p = ip_spool_get_varint(p, &v);
  c->func = (uint32_t)v;
  p = ip_spool_get_varint(p, &v);
  c->depth = (uint32_t)(v >> 1);
  c->has_waits = (uint32_t)(v & 1);
  p = ip_spool_get_varint(p, &v);
  c->start_ns = *last_start += ip_spool_unzigzag(v);
  p = ip_spool_get_varint(p, &c->dur_ns);
  p = ip_spool_get_varint(p, &v);
  c->app_ns = c->dur_ns - ip_spool_unzigzag(v);
  for (int k = 0; c->has_waits && k < IP_WAIT_N; k++)
    p = ip_spool_get_varint(p, &c->wait[k]);
  return 1;
}

/* The spool's memory: 64 MiB, some 6 M calls. */
#define CHROME_SPOOL_MEMORY ((size_t)64 << 20)
/* The floor is found again after this many calls, or four per bin (finding
 * it sorts the bins). */
#define FLOOR_EVERY ((uint64_t)1 << 18)

uint64_t ip_chrome_max_size(const ip_export_opts *o) {
  return o->max_size == UINT64_MAX ? 0 : o->max_size ? o->max_size : IP_CHROME_DEFAULT_MAX_SIZE;
}

/* The n bytes at src at p; the byte after them.  The writers below build a
 * call's event in memory and hand it to stdio in a few writes. */
static char *cat(char *p, const char *src, size_t n) {
  memcpy(p, src, n);
  return p + n;
}
#define CAT(p, lit) cat(p, lit, sizeof lit - 1)

/* Nanoseconds as microseconds with three exact decimals. */
static char *us_at(char *p, uint64_t ns) {
  uint64_t us = ns / 1000;
  p = ip_json_u64(p, us);
  *p++ = '.';
  return ip_json_3digits(p, (unsigned)(ns - us * 1000));
}

static unsigned us_len(uint64_t ns) { return ip_json_digits(ns / 1000) + 4; }

/* A share in tenths of a percent, rounded: "12.3". */
static uint64_t tenths(uint64_t part, uint64_t whole) {
  return part && whole ? (uint64_t)(1000.0 * (double)part / (double)whole + 0.5) : 0;
}
static char *tenths_at(char *p, uint64_t t) {
  p = ip_json_u64(p, t / 10);
  *p++ = '.';
  *p++ = (char)('0' + t % 10);
  return p;
}

/* json_name for a name not made yet. */
static __attribute__((noinline)) const char *make_name(ip_chrome_writer *w, const ip_session *s,
                                                       uint32_t func, uint32_t *len) {
  if (func >= s->n_funcs) {
    *len = 3;
    return "\"?\"";
  }
  if (func >= w->n_names) {
    size_t n = s->n_funcs;
    w->names = ip_must_realloc(w->names, n, sizeof *w->names);
    w->name_len = ip_must_realloc(w->name_len, n, sizeof *w->name_len);
    for (size_t i = w->n_names; i < n; i++)
      w->names[i] = NULL;
    w->n_names = n;
  }
  if (!w->names[func]) {
    const ip_func *f = &s->funcs[func];
    size_t n = 0;
    FILE *m = open_memstream(&w->names[func], &n);
    if (!m) {
      fprintf(stderr, "inclprof: out of memory (a function name)\n");
      exit(1);
    }
    ip_json_string(m, f->pretty && *f->pretty ? f->pretty : f->name);
    fclose(m);
    w->name_len[func] = (uint32_t)n;
  }
  *len = w->name_len[func];
  return w->names[func];
}

/* The function's name as a JSON string literal, escaped once (the session's
 * function table grows while the traces are read: so does the cache). */
static inline const char *json_name(ip_chrome_writer *w, const ip_session *s, uint32_t func,
                                    uint32_t *len) {
  if (func < w->n_names && func < s->n_funcs && w->names[func]) {
    *len = w->name_len[func];
    return w->names[func];
  }
  return make_name(w, s, func, len);
}

static int accepted(const ip_export_opts *o, const ip_session *s, const ip_thread *t,
                    uint32_t depth, uint64_t start, uint64_t dur) {
  return dur >= o->min_duration_ns && ip_selected_thread(s, &o->sel, t) &&
         ip_selected_call(&o->sel, (uint32_t)(t - s->threads), depth, start, dur);
}

static uint32_t pid_of(const ip_session *s, const ip_thread *t) {
  return t->process < s->n_processes ? s->processes[t->process].pid : 0;
}

/* The call's wait breakdown (docs/converter.md, "Wait breakdown"). */
static const char *const wait_names[] = {",\"offcpu_preempted_us\":", ",\"offcpu_blocked_us\":",
                                         ",\"syscall_us\":", ",\"page_fault_us\":"};
static const char faults_name[] = ",\"page_faults\":";

static char *wait_args_at(char *p, const uint64_t *wait) {
  for (int k = 0; k < IP_W_FAULTS; k++) {
    p = cat(p, wait_names[k], strlen(wait_names[k]));
    p = us_at(p, wait[k]);
  }
  p = CAT(p, faults_name);
  return ip_json_u64(p, wait[IP_W_FAULTS]);
}

static size_t wait_len(const uint64_t *wait) {
  size_t n = sizeof faults_name - 1 + ip_json_digits(wait[IP_W_FAULTS]);
  for (int k = 0; k < IP_W_FAULTS; k++)
    n += strlen(wait_names[k]) + us_len(wait[k]);
  return n;
}

static void event_prefix(ip_chrome_writer *w) { fputs(w->events++ ? ",\n" : "\n", w->out); }

#define CALL_HEAD "{\"name\":"
#define CALL_TS   ",\"cat\":\"function\",\"ph\":\"X\",\"ts\":"
#define CALL_DUR  ",\"dur\":"
#define CALL_PID  ",\"pid\":"
#define CALL_TID  ",\"tid\":"
#define CALL_APP  ",\"args\":{\"application_us\":"
#define CALL_PCT  ",\"transitional_pct\":"
#define CALL_END  "}}"

static int with_waits(const ip_session *s, const ip_thread *t) {
  return t->process < s->n_processes && s->processes[t->process].kernel_events;
}

/* The calls' events are gathered in w->buf and handed to stdio in pieces
 * of this size; an event's fields other than the name take less than
 * CALL_ROOM bytes. */
enum { CALLS_BUF = 1 << 16, CALL_ROOM = 1024 };

/* Hands the gathered events to the document, before anything else is
 * written to it. */
static void flush_calls(ip_chrome_writer *w) {
  if (w->buf_len)
    fwrite(w->buf, 1, w->buf_len, w->out);
  w->buf_len = 0;
}

static void put_call(ip_chrome_writer *w, const ip_session *s, const ip_thread *t, uint32_t func,
                     uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns, const uint64_t *wait) {
  uint32_t len;
  const char *name = json_name(w, s, func, &len);
  if (!w->buf)
    w->buf = ip_must_realloc(NULL, CALLS_BUF, 1);
  if (w->buf_len + len + CALL_ROOM > CALLS_BUF)
    flush_calls(w);
  char *p = w->buf + w->buf_len;
  p = w->events++ ? CAT(p, ",\n") : CAT(p, "\n");
  p = CAT(p, CALL_HEAD);
  if (len + CALL_ROOM <= CALLS_BUF) {
    p = cat(p, name, len);
  } else { /* a name longer than the buffer: the head, then the name */
    fwrite(w->buf, 1, (size_t)(p - w->buf), w->out);
    fwrite(name, 1, len, w->out);
    p = w->buf;
  }
  p = CAT(p, CALL_TS);
  p = us_at(p, start_ns);
  p = CAT(p, CALL_DUR);
  p = us_at(p, dur_ns);
  p = CAT(p, CALL_PID);
  p = ip_json_u64(p, pid_of(s, t));
  p = CAT(p, CALL_TID);
  p = ip_json_u64(p, t->tid);
  p = CAT(p, CALL_APP);
  p = us_at(p, app_ns);
  p = CAT(p, CALL_PCT);
  p = tenths_at(p, tenths(dur_ns > app_ns ? dur_ns - app_ns : 0, dur_ns));
  if (wait)
    p = wait_args_at(p, wait);
  p = CAT(p, CALL_END);
  w->buf_len = (size_t)(p - w->buf);
}

/* The bytes put_call writes for this call, with the ",\n" before it. */
static uint32_t call_size(ip_chrome_writer *w, const ip_session *s, const ip_thread *t,
                          uint32_t func, uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns) {
  uint32_t len;
  json_name(w, s, func, &len);
  size_t n = 2 + sizeof CALL_HEAD - 1 + len + sizeof CALL_TS - 1 + us_len(start_ns) +
             sizeof CALL_DUR - 1 + us_len(dur_ns) + sizeof CALL_PID - 1 +
             ip_json_digits(pid_of(s, t)) + sizeof CALL_TID - 1 + ip_json_digits(t->tid) +
             sizeof CALL_APP - 1 + us_len(app_ns) + sizeof CALL_PCT - 1 +
             ip_json_digits(tenths(dur_ns > app_ns ? dur_ns - app_ns : 0, dur_ns) / 10) + 2 +
             sizeof CALL_END - 1;
  if (with_waits(s, t))
    n += wait_len(t->call_wait);
  return (uint32_t)n;
}

static void on_call(void *ctx, const ip_session *s, const ip_thread *t, uint32_t func,
                    uint32_t depth, uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns) {
  ip_chrome_writer *w = ctx;
  if (!accepted(w->o, s, t, depth, start_ns, dur_ns))
    return;
  if (w->streaming) {
    w->written++;
    put_call(w, s, t, func, start_ns, dur_ns, app_ns, with_waits(s, t) ? t->call_wait : NULL);
    return;
  }
  w->events++;
  uint64_t rank = ip_budget_rank(dur_ns, depth);
  ip_budget_add(&w->budget, rank, call_size(w, s, t, func, start_ns, dur_ns, app_ns));
  if (w->budget.calls >= w->next_floor) {
    w->floor = ip_budget_floor(&w->budget, w->o->max_events, ip_chrome_max_size(w->o));
    w->next_floor =
        w->budget.calls + (FLOOR_EVERY > 4 * w->budget.n_bins ? FLOOR_EVERY : 4 * w->budget.n_bins);
  }
  if (rank < w->floor) {
    w->left_out++;
    return;
  }
  chrome_call c = {
      start_ns, dur_ns, app_ns, (uint32_t)(t - s->threads), func, depth, (uint32_t)with_waits(s, t),
      {0}};
  if (c.has_waits)
    memcpy(c.wait, t->call_wait, sizeof c.wait);
  spool_call(w->calls, &c, &w->last_start);
}

static void put_header(ip_chrome_writer *w) {
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", w->out);
}

ip_chrome_writer *ip_chrome_new(const ip_export_opts *o, FILE *out) {
  ip_chrome_writer *w = ip_must_calloc(1, sizeof *w);
  w->o = o;
  w->visitor.ctx = w;
  w->visitor.on_call = on_call;
  w->cut.all = 1;
  if (!o->max_events && !ip_chrome_max_size(o)) {
    w->streaming = 1;
    w->out = out;
    put_header(w);
    return w;
  }
  w->calls = ip_spool_new(CHROME_SPOOL_MEMORY);
  w->events = 1; /* every call measured with its separator */
  return w;
}

const ip_call_visitor *ip_chrome_visitor(ip_chrome_writer *w) { return &w->visitor; }
uint64_t ip_chrome_written(const ip_chrome_writer *w) { return w->written; }
uint64_t ip_chrome_left_out(const ip_chrome_writer *w) { return w->left_out; }

static void name_event(ip_chrome_writer *w, const char *kind, uint32_t pid, uint32_t tid,
                       const char *name) {
  event_prefix(w);
  fprintf(w->out,
          "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
          ",\"args\":{\"name\":",
          kind, pid, tid);
  ip_json_string(w->out, name);
  fputs("}}", w->out);
}

/* ns as microseconds, a NUL-terminated string in b (32 bytes). */
static const char *us_text(char *b, uint64_t ns) {
  *us_at(b, ns) = '\0';
  return b;
}

/* One async event of operation number id: "b" at its start, "e" at its end. */
static void operation_event(ip_chrome_writer *w, const ip_session *s, const ip_operation *op,
                            size_t id, int begin) {
  const ip_thread *t = &s->threads[begin ? op->thread_start : op->thread_end];
  uint64_t end = op->tl_end > op->tl_start ? op->tl_end : op->tl_start;
  char *coroutine = ip_operation_name(s->funcs[op->func].pretty);
  char us[32];
  event_prefix(w);
  fputs("{\"name\":", w->out);
  ip_json_string(w->out, coroutine);
  fprintf(w->out,
          ",\"cat\":\"coroutine\",\"ph\":\"%s\",\"id\":\"0x%zx\",\"pid\":%" PRIu32
          ",\"tid\":%" PRIu32 ",\"ts\":%s",
          begin ? "b" : "e", id, pid_of(s, t), t->tid, us_text(us, begin ? op->tl_start : end));
  if (begin) {
    fprintf(w->out, ",\"args\":{\"frame\":\"0x%" PRIx64 "\",\"runs\":%" PRIu32, op->frame,
            op->runs);
    fprintf(w->out, ",\"ran_us\":%s", us_text(us, op->ran));
    fprintf(w->out, ",\"suspended_us\":%s}", us_text(us, op->suspended));
  }
  fputc('}', w->out);
  free(coroutine);
}

/* Each coroutine operation (model/operations.h) as one async slice from its
 * ramp's start to its last run's end, on the threads where those are; with
 * --slowest, none (only the slow calls are written). */
static void put_operations(ip_chrome_writer *w, const ip_session *s) {
  const ip_selection *sel = &w->o->sel;
  if (sel->n_windows)
    return;
  ip_operations ops;
  ip_operations_build(s, &ops);
  for (size_t i = 0; i < ops.n_ops; i++) {
    const ip_operation *op = &ops.ops[i];
    if (!ip_selected_thread(s, sel, &s->threads[op->thread_start]) ||
        (sel->has_range && (op->tl_end < sel->start_ns || op->tl_start >= sel->end_ns)))
      continue;
    operation_event(w, s, op, i + 1, 1);
    operation_event(w, s, op, i + 1, 0);
  }
  ip_operations_free(&ops);
}

/* The coroutine operations, the process and thread names, and the end of
 * the document. */
static void put_names(ip_chrome_writer *w, const ip_session *s) {
  char name[64];
  char label[512];
  flush_calls(w);
  put_operations(w, s);
  for (size_t i = 0; i < s->n_processes; i++)
    name_event(w, "process_name", s->processes[i].pid, s->processes[i].pid,
               ip_process_viewer_name(s, (uint32_t)i, label, sizeof label));
  for (size_t i = 0; i < s->n_threads; i++) {
    const ip_thread *t = &s->threads[i];
    if (!ip_selected_thread(s, &w->o->sel, t))
      continue;
    snprintf(name, sizeof name, "thread %" PRIu32, t->tid);
    name_event(w, "thread_name", pid_of(s, t), t->tid, t->name && *t->name ? t->name : name);
  }
  if (w->crit)
    ip_chrome_critical(w->out, &w->events, s, w->crit, &w->o->sel, w->flows, w->n_flows);
  fputs("\n]}\n", w->out);
}

static ssize_t count_bytes(void *cookie, const char *buf, size_t n) {
  (void)buf;
  *(uint64_t *)cookie += n;
  return (ssize_t)n;
}

/* Which calls fit: the bytes of everything but the calls are measured by
 * writing them to a stream that only counts. */
static void plan(ip_chrome_writer *w, const ip_session *s) {
  uint64_t max = ip_chrome_max_size(w->o), counted = 0;
  w->out = fopencookie(&counted, "w", (cookie_io_functions_t){.write = count_bytes});
  if (!w->out) {
    fprintf(stderr, "inclprof: out of memory (opening a counting stream)\n");
    exit(1);
  }
  put_header(w);
  put_names(w, s);
  fclose(w->out);
  /* every event was measured after a ",\n"; the document's first has "\n" */
  w->fixed = counted - (w->events > 1);
  ip_budget_plan(&w->budget, w->o->max_events,
                 !max             ? 0
                 : max > w->fixed ? max - w->fixed
                                  : 1,
                 &w->cut);
}

void ip_chrome_write(ip_chrome_writer *w, FILE *out, const ip_session *s) {
  if (w->streaming) {
    put_names(w, s);
    return;
  }
  plan(w, s);
  w->out = out;
  w->events = 0;
  put_header(w);
  chrome_call c;
  w->last_start = 0;
  while (unspool_call(w->calls, &c, &w->last_start)) {
    if (!ip_budget_keep(&w->cut, ip_budget_rank(c.dur_ns, c.depth))) {
      w->left_out++;
      continue;
    }
    w->written++;
    put_call(w, s, &s->threads[c.thread], c.func, c.start_ns, c.dur_ns, c.app_ns,
             c.has_waits ? c.wait : NULL);
  }
  put_names(w, s);
}

void ip_chrome_set_critical(ip_chrome_writer *w, const ip_session *s, const ip_critical *c) {
  free(w->flows);
  w->flows = NULL;
  w->n_flows = 0;
  w->crit = c && c->piece_ns ? c : NULL;
  if (w->crit)
    w->n_flows = ip_critical_flows(s, c, &w->flows);
}

void ip_chrome_report(const ip_chrome_writer *w, FILE *err) {
  ip_budget_say(err, "chrome", &w->budget, &w->cut, w->fixed, ip_chrome_max_size(w->o),
                w->o->max_size != 0, w->o->max_events, w->left_out);
}

void ip_chrome_free(ip_chrome_writer *w) {
  free(w->flows);
  free(w->buf);
  ip_spool_free(w->calls);
  ip_budget_free(&w->budget);
  for (size_t i = 0; i < w->n_names; i++)
    free(w->names[i]);
  free(w->names);
  free(w->name_len);
  free(w);
}

/* `inclprof export --format chrome`: every call sized and kept while the
 * traces are replayed, then written. */
static const ip_call_visitor *begin_chrome(ip_export_job *job) {
  ip_chrome_writer *w = ip_chrome_new(job->opts, job->out);
  job->stream = w;
  return ip_chrome_visitor(w);
}

static void discard_chrome(ip_export_job *job) { ip_chrome_free(job->stream); }

static int write_chrome(ip_export_job *job, const ip_session *s) {
  if (job->opts->critical)
    ip_chrome_set_critical(job->stream, s, job->critical);
  ip_chrome_write(job->stream, job->out, s);
  ip_chrome_report(job->stream, stderr);
  ip_chrome_free(job->stream);
  return 0;
}

const ip_exporter ip_exporter_chrome = {
    .name = "chrome",
    .readers = "Perfetto, DevTools",
    .default_output = "inclprof.trace.json",
    .options = IP_EXOPT_MIN_DURATION | IP_EXOPT_MAX_EVENTS | IP_EXOPT_MAX_SIZE |
               IP_EXOPT_TIME_RANGE | IP_EXOPT_SLOWEST | IP_EXOPT_SLOWEST_CALLS | IP_EXOPT_CRITICAL,
    .operations = 1,
    .begin = begin_chrome,
    .discard = discard_chrome,
    .write = write_chrome,
};
