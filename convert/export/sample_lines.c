/* export/sample_lines.c - sampled addresses located once per process and
 * address (see export/sample_lines.h). */
#include "export/sample_lines.h"

#include <stdlib.h>
#include <string.h>

void ip_sample_lines_init(ip_sample_lines *sl, const ip_session *s) {
  memset(sl, 0, sizeof *sl);
  sl->z = ip_symbolizer_new();
  sl->n_processes = s->n_processes;
  sl->by_pc = ip_must_calloc(s->n_processes ? s->n_processes : 1, sizeof *sl->by_pc);
}

void ip_sample_lines_free(ip_sample_lines *sl) {
  for (size_t i = 0; i < sl->n_processes; i++)
    ip_u64map_free(&sl->by_pc[i]);
  free(sl->by_pc);
  free(sl->locs);
  if (sl->z)
    ip_symbolizer_free(sl->z);
  memset(sl, 0, sizeof *sl);
}

size_t ip_sample_lines_at(ip_sample_lines *sl, const ip_session *s, uint32_t process, uint64_t pc) {
  if (process >= sl->n_processes) { /* a process read since (a load going on) */
    size_t old = sl->n_processes;
    ip_must_grow((void **)&sl->by_pc, &sl->n_processes, (size_t)process + 1, sizeof *sl->by_pc);
    memset(sl->by_pc + old, 0, (sl->n_processes - old) * sizeof *sl->by_pc);
  }
  uint32_t k = ip_u64map_get(&sl->by_pc[process], pc);
  if (k != UINT32_MAX)
    return k;
  ip_must_grow((void **)&sl->locs, &sl->cap_locs, sl->n_locs + 1, sizeof *sl->locs);
  k = (uint32_t)sl->n_locs++;
  ip_source_locate(sl->z, s, process, pc, &sl->locs[k]);
  ip_u64map_put(&sl->by_pc[process], pc, k);
  return k;
}

void ip_sample_lines_locate(void *sl, const ip_session *s, uint32_t process, uint64_t pc,
                            ip_src_loc *out) {
  ip_sample_lines *x = sl;
  size_t k = ip_sample_lines_at(x, s, process, pc); /* may move x->locs */
  *out = x->locs[k];
}

int ip_sample_in_func(const ip_src_loc *where, const ip_func *f) {
  if (!where->n_frames)
    return 0;
  return ip_func_named(f, where->frame[where->n_frames - 1].func);
}

uint64_t ip_share(uint64_t v, uint64_t before, uint64_t w, uint64_t all) {
  unsigned __int128 x = v;
  return (uint64_t)(x * (before + w) / all - x * before / all);
}
