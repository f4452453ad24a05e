/* model/index_load.c - a trace file described from the Index, Trailer and
 * Footer it ends with (read/trace_index.h), for `info`: its threads with
 * their counts, its modules, its table sizes and its trailer, without
 * replaying an event.  A file without a valid index is read through; the
 * reason is kept for info to print. */
#include <stdlib.h>

#include "model/loader.h"
#include "read/read.h"
#include "util/util.h"

static void take_thread(ip_file *f, const Inclprof__IndexThread *it) {
  uint32_t i = ip_tables_thread(f->s, f->tabs, f->proc, it->tid);
  ip_thread *th = &f->s->threads[i];
  th->name = it->name ? ip_must_strdup(it->name) : NULL;
  th->no_transitions = it->no_transitions ? ip_must_strdup(it->no_transitions) : NULL;
  th->events = it->events;
  th->batches = it->batches;
  th->batches_lost = it->batches_lost;
  th->gaps = it->gaps;
  th->alive_at_exit = it->alive_at_exit;
  th->stopped = it->stopped ? ip_must_strdup(it->stopped) : NULL;
  th->kernel_lost = it->kernel_lost;
}

int ip_file_from_index(ip_file *f) {
  char why[512];
  ip_trace_end e;
  ip_process *p = &f->s->processes[f->proc];
  if (ip_trace_end_read(f->path, &e, why, sizeof why)) {
    p->scan_why = ip_must_strdup(why);
    return -1;
  }
  const Inclprof__Index *ix = e.index->index;
  for (size_t i = 0; i < ix->n_modules; i++)
    ip_file_take_module(f, ix->modules[i]);
  p->n_functions = ix->functions;
  for (size_t i = 0; i < ix->n_tables; i++)
    ip_file_count_table_ref(f, ix->tables[i]);
  for (size_t i = 0; i < ix->n_threads; i++)
    take_thread(f, ix->threads[i]);
  if (e.stop_trailer) /* the stop, then the exit: how long it ran on */
    ip_file_take_trailer(f, p, e.stop_trailer->trailer);
  ip_file_take_trailer(f, p, e.trailer->trailer);
  p->from_index = 1;
  ip_trace_end_free(&e);
  return 0;
}
