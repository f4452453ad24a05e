/* model/call_sites.c - call lines: the plugin gives each call line of a
 * callee its own descriptor (INCLPROF_FN_CALL_SITE, file and line of the
 * call), so each line's calls have their own gid; the callee keeps one row
 * (its Function records intern as one function), and the calls of each line
 * are summed per thread by (callee path, line) for report --callees. */
#include <stdlib.h>
#include <string.h>

#include "fnv1a.h"
#include "inclprof_abi.h"
#include "model/loader.h"
#include "util/util.h"

uint32_t ip_tables_site(ip_session *s, ip_tables *t, const char *file, uint32_t line) {
  uint64_t h = ip_fnv1a64(IP_FNV1A64_BASIS, file, strlen(file));
  h = ip_fnv1a64(h, &line, sizeof line);
  for (;; h++) {
    uint32_t k = ip_u64map_get(&t->site_by_key, h);
    if (k == UINT32_MAX)
      break;
    if (s->sites[k].line == line && !strcmp(s->sites[k].file, file))
      return k;
  }
  ip_must_grow((void **)&s->sites, &t->cap_sites, s->n_sites + 1, sizeof *s->sites);
  uint32_t k = (uint32_t)s->n_sites++;
  s->sites[k].file = ip_must_strdup(file);
  s->sites[k].line = line;
  ip_u64map_put(&t->site_by_key, h, k);
  return k;
}

void ip_file_call_site(ip_file *f, uint32_t gid, ip_func *proto) {
  if (!(proto->flags & INCLPROF_FN_CALL_SITE) || !proto->file || !*proto->file)
    return;
  ip_file_gid_site(f, gid, ip_tables_site(f->s, f->tabs, proto->file, proto->line) + 1);
  proto->file = "";
  proto->line = 0;
}

void ip_file_gid_site(ip_file *f, uint32_t gid, uint32_t site1) {
  size_t old = f->n_gid_site;
  if (gid < (1u << 22)) { /* as dense as the gid table (larger gids are damage) */
    ip_must_grow((void **)&f->gid_site, &f->n_gid_site, (size_t)gid + 1, sizeof *f->gid_site);
    memset(f->gid_site + old, 0, (f->n_gid_site - old) * sizeof *f->gid_site);
    f->gid_site[gid] = site1;
  }
}

uint32_t ip_file_site(const ip_file *f, uint32_t gid) {
  return gid < f->n_gid_site ? f->gid_site[gid] : 0;
}

void ip_site_call(ip_tstate *ts, ip_thread *th, uint32_t node, uint32_t site, uint64_t calls,
                  uint64_t el, uint64_t app) {
  uint64_t key = (uint64_t)node << 32 | (site - 1);
  uint32_t k = ip_u64map_get(&ts->site_vals, key);
  if (k == UINT32_MAX) {
    ip_must_grow((void **)&th->sites, &th->cap_sites, th->n_sites + 1, sizeof *th->sites);
    k = (uint32_t)th->n_sites++;
    th->sites[k] = (ip_site_values){node, site - 1, 0, 0, 0};
    ip_u64map_put(&ts->site_vals, key, k);
  }
  th->sites[k].calls += calls;
  th->sites[k].el_incl += el;
  th->sites[k].app_incl += app;
}

void ip_sites_merge(ip_session *s, ip_tables *t, const ip_session *part, ip_thread *th) {
  for (size_t i = 0; i < th->n_sites; i++) {
    const ip_site *from = &part->sites[th->sites[i].site];
    th->sites[i].site = ip_tables_site(s, t, from->file, from->line);
  }
}
