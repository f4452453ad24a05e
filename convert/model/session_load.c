/* model/session_load.c - ip_session_load: the session of every trace file
 * named (model/file_load.c reads each; model/session_files.c reads several
 * in parallel), its threads summed into processes and the session, and the
 * warnings about the whole: files named twice, separate runs, lost batches. */
#include <stdio.h>
#include <string.h>

#include "model/aggregate.h"
#include "model/loader.h"
#include "read/read.h"

/* The earliest process start, time 0 of every thread's start_ns. */
static int session_start(ip_session *s, const ip_paths *files, const ip_load_opts *o) {
  char err[512];
  s->start_unix_ns = UINT64_MAX;
  for (size_t i = 0; i < files->n; i++) {
    uint64_t start;
    if (ip_file_start_ns(files->v[i], &start, err, sizeof err)) {
      ip_load_fail(o, err);
      return -1;
    }
    if (start < s->start_unix_ns)
      s->start_unix_ns = start;
  }
  return 0;
}

static void add_repairs(ip_repairs *to, const ip_repairs *r) {
  to->popped += r->popped;
  to->closed_at_end += r->closed_at_end;
  to->unmatched += r->unmatched;
  to->clock_back += r->clock_back;
  to->unwound += r->unwound;
  to->forked += r->forked;
}

static void sum_totals(ip_session *s) {
  for (size_t i = 0; i < s->n_threads; i++) {
    const ip_thread *th = &s->threads[i];
    ip_process *p = &s->processes[th->process];
    ip_values_add(&p->total, &th->total);
    p->events += th->events;
    p->batches += th->batches;
    p->batches_lost += th->batches_lost;
    p->gaps += th->gaps;
    p->gap_ns += th->gap_ns;
    p->repairs += th->repairs;
    p->samples_outside += th->samples_outside;
    if (th->no_transitions && !p->threads_no_transitions++)
      p->no_transitions_why = th->no_transitions;
    p->kernel_lost += th->kernel_lost;
    p->threads_alive_at_exit += th->alive_at_exit;
    if (th->stopped && !p->threads_stopped++) {
      p->stopped_tid = th->tid;
      p->stopped_why = th->stopped;
    }
    add_repairs(&s->rep, &th->rep);
  }
  for (size_t i = 0; i < s->n_processes; i++) {
    const ip_process *p = &s->processes[i];
    ip_values_add(&s->total, &p->total);
    s->events += p->events;
    s->repairs += p->repairs;
    s->batches_lost += p->batches_lost;
    s->gaps += p->gaps;
    s->samples_outside += p->samples_outside;
  }
  s->total.smp_incl += s->samples_outside;
  s->total.smp_excl += s->samples_outside;
}

/* Traces of separate runs read together add up their values without a word
 * unless they are named: the processes' run ids (Header.run) tell. */
static void warn_runs(const ip_session *s, const ip_load_opts *o) {
  const char *first = NULL;
  size_t runs = 0;
  for (size_t i = 0; i < s->n_processes; i++) {
    const char *r = s->processes[i].run;
    if (!r)
      continue;
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++)
      seen = s->processes[j].run && !strcmp(s->processes[j].run, r);
    if (!seen && !runs++)
      first = s->processes[i].trace_path;
  }
  if (runs < 2)
    return;
  char msg[1200];
  snprintf(msg, sizeof msg,
           "the traces read hold %zu separate runs (as %s and others show): their values are "
           "added together; record each run into a directory of its own (inclprof record moves "
           "an earlier run aside)",
           runs, first);
  ip_load_warn(o, msg);
}

static void warn_lost(const ip_session *s, const ip_load_opts *o) {
  char msg[600];
  for (size_t i = 0; i < s->n_threads; i++) {
    const ip_thread *th = &s->threads[i];
    if (!th->batches_lost)
      continue;
    snprintf(msg, sizeof msg,
             "%s: thread %u: %llu event batches missing (lost data: their time is not attributed, "
             "but a call whose exit was in them stays open and reads too long)",
             s->processes[th->process].trace_path, th->tid, (unsigned long long)th->batches_lost);
    ip_load_warn(o, msg);
  }
}

void ip_file_done(ip_session *s, const ip_load_opts *o, size_t first_thread) {
  if (!o || !o->file_done)
    return;
  o->file_done(o->file_done_ctx, s, first_thread);
  for (size_t i = first_thread; i < s->n_threads; i++)
    ip_thread_keep(s, &s->threads[i], o->keep);
}

int ip_session_load(ip_session *s, char *const *paths, size_t n_paths, const ip_load_opts *o) {
  memset(s, 0, sizeof *s);
  s->compensated = !(o && o->raw);
  ip_tables t = {0};
  ip_tables_module(s, &t, IP_UNKNOWN_MODULE);
  ip_paths files = {0};
  char err[512];
  int rc = 0;
  for (size_t i = 0; i < n_paths && !rc; i++)
    if (ip_paths_add(&files, paths[i], err, sizeof err)) {
      ip_load_fail(o, err);
      rc = -1;
    }
  if (!rc && !files.n && files.table) {
    snprintf(err, sizeof err,
             "%s: a function table file (the traces of its directory share it), not a trace: "
             "give the trace files (*.ipb) or their directory",
             files.table);
    ip_load_fail(o, err);
    rc = -1;
  }
  if (!rc && files.n_repeated) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s: named again (%zu file(s) in all): each file is read once",
             files.repeated, files.n_repeated);
    ip_load_warn(o, msg);
  }
  if (!rc)
    rc = session_start(s, &files, o);
  unsigned readers = 0;
  /* The critical path's pieces name threads by their final index: files one
   * after another (each file's threads still replay in parallel). */
  if (!rc && o && o->jobs > 1 && !(o->visitor && o->visitor->on_call) && !o->critical)
    readers =
        ip_files_readers(&files, o->jobs, o->small_files_in_parallel ? 0 : IP_PARALLEL_MIN_AVERAGE);
  if (!rc && readers) {
    rc = ip_session_load_files(s, &t, &files, o, readers, err, sizeof err);
    if (rc)
      ip_load_fail(o, err);
  }
  for (size_t i = 0; i < files.n && !rc && !readers; i++) {
    /* cppcheck-suppress variableScope ; the file's first thread, before it loads */
    size_t first = s->n_threads;
    rc = ip_load_file(s, &t, files.v[i], o, NULL);
    if (!rc)
      ip_file_done(s, o, first);
  }
  ip_paths_free(&files);
  ip_tables_free(&t);
  if (rc) {
    ip_session_free(s);
    return -1;
  }
  sum_totals(s);
  ip_processes_link(s);
  warn_runs(s, o);
  warn_lost(s, o);
  return 0;
}
