/* model/critical_load.c - loading with the critical path: a first replay
 * keeps every thread's kernel timeline, the path is found from them, and a
 * second replay gives each call path its share of the path's pieces
 * (Critical Inclusive / Exclusive).  Without wake edges the first load is
 * the result. */
#include <stdlib.h>

#include "model/critical.h"
#include "model/profile.h"
#include "util/util.h"

int ip_session_load_critical(ip_session *s, char *const *paths, size_t n_paths,
                             const ip_load_opts *o, ip_critical *c) {
  ip_load_opts first = *o;
  first.critical = c;
  c->collect = 1;
  int rc = ip_session_load(s, paths, n_paths, &first);
  c->collect = 0;
  if (rc)
    return rc;
  ip_critical_find(s, c);
  if (!c->any_edges)
    return 0;
  c->n_klines = s->n_threads;
  c->klines = ip_must_calloc(s->n_threads + 1, sizeof *c->klines);
  for (size_t i = 0; i < s->n_threads; i++) {
    c->klines[i] = s->threads[i].kline;
    s->threads[i].kline = NULL;
  }
  ip_session_free(s);
  ip_load_opts second = *o;
  second.critical = c;
  second.quiet = 1; /* the first load said what there was to say */
  return ip_session_load(s, paths, n_paths, &second);
}
