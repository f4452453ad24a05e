/* model/pc_samples.c - a thread's samples by instruction address and call
 * path (ip_pc_sample), counted while its events are replayed: one entry per
 * distinct (address, path), found through an index of the addresses. */
#include <stdlib.h>

#include "model/loader.h"
#include "util/util.h"

void ip_pc_sample_add(ip_pc_index *ix, ip_thread *th, uint64_t pc, uint32_t node) {
  uint32_t newest = ip_u64map_get(&ix->by_pc, pc);
  for (uint32_t i = newest; i != UINT32_MAX; i = ix->next[i])
    if (th->pcs[i].node == node) {
      th->pcs[i].count++;
      return;
    }
  size_t cap = th->cap_pcs;
  ip_must_grow((void **)&th->pcs, &th->cap_pcs, th->n_pcs + 1, sizeof *th->pcs);
  if (th->cap_pcs != cap || !ix->next)
    ix->next = ip_must_realloc(ix->next, th->cap_pcs, sizeof *ix->next);
  uint32_t k = (uint32_t)th->n_pcs++;
  th->pcs[k] = (ip_pc_sample){pc, node, 1};
  ix->next[k] = newest;
  ip_u64map_put(&ix->by_pc, pc, k);
}

void ip_pc_index_free(ip_pc_index *ix) {
  ip_u64map_free(&ix->by_pc);
  free(ix->next);
  ix->next = NULL;
}
