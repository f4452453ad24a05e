/* export/chrome_critical.c - the critical path in the Chrome trace (traces
 * with wake edges): a flow arrow ("s" then "f", bound to the enclosing
 * slices) from each wake-up of a traced thread to the woken thread's return
 * to a CPU, and from a thread's creation to its first event; and per process
 * a "critical path" track, one slice per piece of the path, named by what
 * its thread did then and by the thread.  Only threads the export selects. */
#include <inttypes.h>
#include <stdlib.h>

#include "export/chrome.h"
#include "export/json.h"
#include "util/util.h"

static const char *const kind_names[IP_CP_KINDS] = {
    "running", "waiting for a CPU", "asleep with no traced waker", "thread starting"};

static void prefix(FILE *out, uint64_t *events) { fputs((*events)++ ? ",\n" : "\n", out); }

/* ns as microseconds with three decimals: exact. */
static void put_us(FILE *out, uint64_t ns) {
  fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static uint32_t pid_of(const ip_session *s, const ip_thread *t) {
  return t->process < s->n_processes ? s->processes[t->process].pid : 0;
}

/* The track's tid in process p: no thread's. */
static uint32_t track_tid(size_t p) { return (uint32_t)(0x7fffffff - p); }

static void flow_end(FILE *out, uint64_t *events, const ip_session *s, const ip_thread *t,
                     const char *ph, uint64_t id, uint64_t ns) {
  prefix(out, events);
  fprintf(out,
          "{\"name\":\"wake-up\",\"cat\":\"wake\",\"ph\":\"%s\",%s\"id\":%" PRIu64
          ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":",
          ph, *ph == 'f' ? "\"bp\":\"e\"," : "", id, pid_of(s, t), t->tid);
  put_us(out, ns);
  fputc('}', out);
}

void ip_chrome_critical(FILE *out, uint64_t *events, const ip_session *s, const ip_critical *c,
                        const ip_selection *sel, const ip_wake_flow *flows, size_t n_flows) {
  for (size_t i = 0; i < n_flows; i++) {
    const ip_thread *w = &s->threads[flows[i].waker], *x = &s->threads[flows[i].wakee];
    if (!ip_selected_thread(s, sel, w) || !ip_selected_thread(s, sel, x))
      continue;
    flow_end(out, events, s, w, "s", i + 1, flows[i].wake_ns);
    flow_end(out, events, s, x, "f", i + 1, flows[i].run_ns);
  }
  uint8_t *named = ip_must_calloc(s->n_processes + 1, 1);
  for (size_t i = 0; i < c->n_pieces; i++) {
    const ip_cp_piece *p = &c->pieces[i];
    uint64_t from, to;
    if (p->thread >= s->n_threads || !ip_selected_thread(s, sel, &s->threads[p->thread]) ||
        !ip_critical_piece_ns(s, c, i, &from, &to))
      continue;
    const ip_thread *t = &s->threads[p->thread];
    size_t proc = t->process;
    if (proc < s->n_processes && !named[proc]) {
      named[proc] = 1;
      prefix(out, events);
      fprintf(out,
              "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
              ",\"args\":{\"name\":\"critical path\"}}",
              pid_of(s, t), track_tid(proc));
    }
    char name[300];
    snprintf(name, sizeof name, "%s: thread %" PRIu32 " (%s)",
             kind_names[p->kind < IP_CP_KINDS ? p->kind : 0], t->tid,
             t->name && *t->name ? t->name : "?");
    prefix(out, events);
    fputs("{\"name\":", out);
    ip_json_string(out, name);
    fprintf(out,
            ",\"cat\":\"critical\",\"ph\":\"X\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":",
            pid_of(s, t), track_tid(proc));
    put_us(out, from);
    fputs(",\"dur\":", out);
    put_us(out, to - from);
    fprintf(out, ",\"args\":{\"tid\":%" PRIu32 "}}", t->tid);
  }
  free(named);
}
