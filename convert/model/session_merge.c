/* model/session_merge.c - a trace file read apart, into a session and tables
 * of its own (model/session_files.c), joins the session as if it had been
 * read there: its modules and functions are interned in the order its own
 * tables interned them, which is the order a serial read interns them; its
 * process and threads are appended, their call trees and module lists
 * renumbered and their sums made again. */
#include <stdlib.h>

#include "model/loader.h"
#include "util/util.h"

void ip_session_merge(ip_session *s, ip_tables *t, ip_session *part, ip_keep keep) {
  size_t first_new = s->n_modules;
  uint32_t *mod = ip_must_calloc(part->n_modules + 1, sizeof *mod);
  size_t *modules_then = ip_must_calloc(part->n_modules + 1, sizeof *modules_then);
  modules_then[0] = first_new; /* s->n_modules when part had k modules */
  for (size_t i = 0; i < part->n_modules; i++) {
    mod[i] = ip_tables_module(s, t, part->modules[i].path);
    modules_then[i + 1] = modules_then[i] + (mod[i] >= first_new);
  }
  uint32_t *fn = ip_must_calloc(part->n_funcs + 1, sizeof *fn);
  for (size_t i = 0; i < part->n_funcs; i++) {
    ip_func proto = part->funcs[i];
    proto.module = mod[proto.module];
    fn[i] = ip_tables_func(s, t, &proto);
  }
  uint32_t proc0 = (uint32_t)s->n_processes;
  for (size_t i = 0; i < part->n_processes; i++) {
    uint32_t k = ip_tables_process(s, t); /* may move s->processes */
    ip_process *p = &s->processes[k];
    *p = part->processes[i];
    for (size_t m = 0; m < p->n_mods; m++)
      p->mods[m].module = mod[p->mods[m].module];
  }
  for (size_t i = 0; i < part->n_threads; i++) {
    ip_must_grow((void **)&s->threads, &t->cap_threads, s->n_threads + 1, sizeof *s->threads);
    ip_thread *th = &s->threads[s->n_threads++];
    *th = part->threads[i];
    th->process += proc0;
    for (size_t n = 1; n < th->n_nodes; n++)
      th->nodes[n].func = fn[th->nodes[n].func];
    ip_sites_merge(s, t, part, th);
    if (th->fold_mod) { /* its modules' inclusive values, by the session's modules */
      ip_values *by = ip_must_calloc(s->n_modules + 1, sizeof *by);
      for (size_t m = 0; m < th->n_fold_mod && m < part->n_modules; m++)
        by[mod[m]] = th->fold_mod[m];
      free(th->fold_mod);
      th->fold_mod = by;
      th->n_fold_mod = s->n_modules;
    }
    size_t n_mod = th->n_mod;
    free(th->fn);
    free(th->mod);
    ip_thread_sums(s, th);
    th->n_mod = n_mod ? modules_then[n_mod] : 0; /* the modules known when it ended */
    ip_thread_keep(s, th, keep);
  }
  s->samples_in_runtime += part->samples_in_runtime;
  s->n_files += part->n_files;
  s->n_damaged += part->n_damaged;
  free(mod);
  free(modules_then);
  free(fn);
  part->n_processes = part->n_threads = 0; /* moved: only their arrays are left */
  ip_session_free(part);
}
