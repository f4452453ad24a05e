/* model/critical_load.c - loading with the critical path: when a trace's
 * header says it has wake edges, a first replay (without the caller's call
 * visitor) keeps every thread's kernel timeline, the path is found from
 * them, and a second replay gives each call path its share of the path's
 * pieces (Critical Inclusive / Exclusive).  Traces without wake edges are
 * loaded once, as ip_session_load does. */
#include <stdio.h>
#include <stdlib.h>

#include "model/critical.h"
#include "model/loader.h"
#include "read/read.h"
#include "util/util.h"

/* Whether any trace file named by paths says it has wake edges. */
static int any_wake_edges(char *const *paths, size_t n_paths) {
  ip_paths files = {0};
  char err[512];
  for (size_t i = 0; i < n_paths; i++)
    if (ip_paths_add(&files, paths[i], err, sizeof err))
      break; /* the load names the fault */
  int edges = 0;
  for (size_t i = 0; i < files.n && !edges; i++)
    edges = ip_file_wake_edges(files.v[i]);
  ip_paths_free(&files);
  return edges;
}

int ip_session_load_critical(ip_session *s, char *const *paths, size_t n_paths,
                             const ip_load_opts *o, ip_critical *c) {
  if (!any_wake_edges(paths, n_paths))
    return ip_session_load(s, paths, n_paths, o);
  ip_load_opts first = *o;
  first.critical = c;
  first.visitor = NULL;   /* the second replay's */
  first.file_done = NULL; /* likewise */
  c->collect = 1;
  int rc = ip_session_load(s, paths, n_paths, &first);
  c->collect = 0;
  if (rc)
    return rc;
  ip_critical_find(s, c);
  c->n_klines = s->n_threads;
  c->klines = ip_must_calloc(s->n_threads + 1, sizeof *c->klines);
  for (size_t i = 0; i < s->n_threads; i++) {
    c->klines[i] = s->threads[i].kline;
    s->threads[i].kline = NULL;
  }
  if (c->what_if && ip_whatif_prepare(s, c)) {
    char msg[600];
    snprintf(msg, sizeof msg,
             "--what-if: no function named '%s' ran (names are the demangled or assembler names "
             "of the table)",
             c->what_if);
    ip_load_fail(o, msg);
    return -1; /* s stays loaded: the caller frees it */
  }
  ip_critical_times_prepare(c);
  ip_session_free(s);
  ip_load_opts second = *o;
  second.critical = c;
  second.quiet = 1; /* the first load said what there was to say */
  return ip_session_load(s, paths, n_paths, &second);
}
