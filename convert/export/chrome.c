/* export/chrome.c - Chrome Trace Event JSON, streamed: each completed call
 * becomes an "X" event as soon as the replay reports it.  Times are
 * microseconds written as exact decimals of the nanosecond values, so calls
 * nest in the viewer exactly as they did in the program. */
#include "export/chrome.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/json.h"
#include "util/must_alloc.h"

struct ip_chrome_writer {
  FILE *out;
  const ip_export_opts *o;
  ip_call_visitor visitor;
  uint64_t events;              /* events of any kind written (for the commas) */
  uint64_t written, over_limit; /* calls written / left out by --max-events */
};

/* Nanoseconds as microseconds with three exact decimals. */
static void put_us(FILE *out, uint64_t ns) {
  fprintf(out, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

static int accepted(const ip_export_opts *o, const ip_session *s, const ip_thread *t,
                    uint64_t start, uint64_t dur) {
  return dur >= o->min_duration_ns && ip_selected_thread(s, &o->sel, t) &&
         ip_selected_call(&o->sel, start, dur);
}

static uint32_t pid_of(const ip_session *s, const ip_thread *t) {
  return t->process < s->n_processes ? s->processes[t->process].pid : 0;
}

/* The call's wait breakdown (docs/converter.md, "Wait breakdown"). */
static void wait_args(FILE *out, const uint64_t *wait) {
  static const char *const names[] = {"offcpu_preempted_us", "offcpu_blocked_us", "syscall_us",
                                      "page_fault_us"};
  for (int k = 0; k < IP_W_FAULTS; k++) {
    fprintf(out, ",\"%s\":", names[k]);
    put_us(out, wait[k]);
  }
  fprintf(out, ",\"page_faults\":%" PRIu64, wait[IP_W_FAULTS]);
}

static void event_prefix(ip_chrome_writer *w) { fputs(w->events++ ? ",\n" : "\n", w->out); }

static void on_call(void *ctx, const ip_session *s, const ip_thread *t, uint32_t func,
                    uint32_t depth, uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns) {
  ip_chrome_writer *w = ctx;
  (void)depth;
  if (!accepted(w->o, s, t, start_ns, dur_ns))
    return;
  if (w->o->max_events && w->written >= w->o->max_events) {
    w->over_limit++;
    return;
  }
  const ip_func *f = func < s->n_funcs ? &s->funcs[func] : NULL;
  w->written++;
  event_prefix(w);
  fputs("{\"name\":", w->out);
  ip_json_string(w->out, !f ? "?" : f->pretty && *f->pretty ? f->pretty : f->name);
  fputs(",\"cat\":\"function\",\"ph\":\"X\",\"ts\":", w->out);
  put_us(w->out, start_ns);
  fputs(",\"dur\":", w->out);
  put_us(w->out, dur_ns);
  fprintf(w->out,
          ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{\"application_us\":", pid_of(s, t),
          t->tid);
  put_us(w->out, app_ns);
  uint64_t transitional = dur_ns > app_ns ? dur_ns - app_ns : 0;
  fprintf(w->out, ",\"transitional_pct\":%.1f",
          dur_ns ? 100.0 * (double)transitional / (double)dur_ns : 0.0);
  if (t->process < s->n_processes && s->processes[t->process].kernel_events)
    wait_args(w->out, t->call_wait);
  fputs("}}", w->out);
}

ip_chrome_writer *ip_chrome_begin(FILE *out, const ip_export_opts *o) {
  ip_chrome_writer *w = ip_must_calloc(1, sizeof *w);
  w->out = out;
  w->o = o;
  w->visitor.ctx = w;
  w->visitor.on_call = on_call;
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
  return w;
}

const ip_call_visitor *ip_chrome_visitor(ip_chrome_writer *w) { return &w->visitor; }
uint64_t ip_chrome_written(const ip_chrome_writer *w) { return w->written; }
uint64_t ip_chrome_over_limit(const ip_chrome_writer *w) { return w->over_limit; }

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

void ip_chrome_end(ip_chrome_writer *w, const ip_session *s) {
  char name[64];
  for (size_t i = 0; i < s->n_processes; i++) {
    const ip_process *p = &s->processes[i];
    const char *exe = p->executable && *p->executable ? p->executable : "process";
    const char *slash = strrchr(exe, '/');
    name_event(w, "process_name", p->pid, p->pid, slash && slash[1] ? slash + 1 : exe);
  }
  for (size_t i = 0; i < s->n_threads; i++) {
    const ip_thread *t = &s->threads[i];
    if (!ip_selected_thread(s, &w->o->sel, t))
      continue;
    snprintf(name, sizeof name, "thread %" PRIu32, t->tid);
    name_event(w, "thread_name", pid_of(s, t), t->tid, t->name && *t->name ? t->name : name);
  }
  fputs("\n]}\n", w->out);
  free(w);
}

void ip_chrome_discard(ip_chrome_writer *w) { free(w); }

/* `inclprof export --format chrome`: written while the traces are replayed. */
static const ip_call_visitor *begin_chrome(ip_export_job *job) {
  job->stream = ip_chrome_begin(job->out, job->opts);
  return ip_chrome_visitor(job->stream);
}

static void discard_chrome(ip_export_job *job) { ip_chrome_discard(job->stream); }

static int write_chrome(ip_export_job *job, const ip_session *s) {
  ip_chrome_writer *w = job->stream;
  if (ip_chrome_over_limit(w))
    fprintf(stderr, "inclprof export: --max-events %" PRIu64 ": left out %" PRIu64 " later calls\n",
            job->opts->max_events, ip_chrome_over_limit(w));
  ip_chrome_end(w, s);
  return 0;
}

const ip_exporter ip_exporter_chrome = {
    .name = "chrome",
    .readers = "Perfetto, DevTools",
    .default_output = "inclprof.trace.json",
    .options = IP_EXOPT_MIN_DURATION | IP_EXOPT_MAX_EVENTS | IP_EXOPT_TIME_RANGE,
    .begin = begin_chrome,
    .discard = discard_chrome,
    .write = write_chrome,
};
