/* model/session_free.c - ip_session_free: every table of a loaded session
 * and what its rows own. */
#include <stdlib.h>
#include <string.h>

#include "model/critical.h"
#include "model/latency.h"
#include "model/profile.h"

void ip_session_free(ip_session *s) {
  for (size_t i = 0; i < s->n_modules; i++)
    free(s->modules[i].path);
  for (size_t i = 0; i < s->n_funcs; i++) {
    free(s->funcs[i].name);
    free(s->funcs[i].pretty);
    free(s->funcs[i].file);
  }
  for (size_t i = 0; i < s->n_sites; i++)
    free(s->sites[i].file);
  free(s->sites);
  for (size_t i = 0; i < s->n_threads; i++) {
    free(s->threads[i].name);
    free(s->threads[i].first_name);
    free(s->threads[i].no_transitions);
    free(s->threads[i].stopped);
    free(s->threads[i].nodes);
    free(s->threads[i].pcs);
    free(s->threads[i].sites);
    free(s->threads[i].coro);
    free(s->threads[i].fn);
    free(s->threads[i].mod);
    free(s->threads[i].fold_mod);
    ip_kline_free(s->threads[i].kline);
    if (s->threads[i].lat)
      ip_lat_free_all(s->threads[i].lat, s->threads[i].n_nodes);
    if (s->threads[i].fn_lat)
      ip_lat_free_all(s->threads[i].fn_lat, s->threads[i].n_fn);
    ip_lat_free_all(s->threads[i].lat_by_func, s->threads[i].n_lat_by_func);
  }
  if (s->lat_sums)
    ip_lat_free_all(s->lat_sums, s->n_lat_sums);
  for (size_t i = 0; i < s->n_processes; i++) {
    ip_process *p = &s->processes[i];
    free(p->executable);
    free(p->cmdline);
    free(p->start_cmdline);
    free(p->title);
    free(p->trace_path);
    free(p->transitions_note);
    free(p->windows);
    free(p->snapshot);
    free(p->damage);
    free(p->tables_missing);
    free(p->scan_why);
    free(p->hostname);
    free(p->run);
    free(p->runtime_version);
    free(p->exit_reason);
    free(p->write_error);
    free(p->exec_unrecorded);
    free(p->size_policy);
    free(p->mods);
  }
  free(s->fn_sums);
  free(s->mod_sums);
  free(s->modules);
  free(s->funcs);
  free(s->threads);
  free(s->processes);
  memset(s, 0, sizeof *s);
}
