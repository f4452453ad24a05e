/* critical_sleeps.c - the critical path's sleeps as the waits table
 * (views/view_critical.c) and the lock table (critical_locks.c) read them:
 * every off-CPU stretch of every traced thread with its waker as a session
 * thread, and the sleep each jump of the path left. */
#include <stdlib.h>

#include "model/critical.h"
#include "model/profile.h"
#include "util/util.h"

double ip_critical_tick_ns(const ip_session *s, uint32_t thread) {
  const ip_process *p = &s->processes[s->threads[thread].process];
  return p->ticks_per_second > 0 ? 1e9 / p->ticks_per_second : 1.0;
}

void ip_critical_each_sleep(const ip_session *s, const ip_critical *c, ip_sleep_fn *fn, void *ctx) {
  /* a process's threads by their local index (as ip_critical_find listed them) */
  uint32_t *local = ip_must_calloc(s->n_threads + 1, sizeof *local);
  for (size_t p = 0; p < s->n_processes; p++) {
    uint32_t k = 0;
    for (size_t i = 0; i < s->n_threads && i < c->n_klines; i++)
      if (s->threads[i].process == p && c->klines[i] && c->klines[i]->last)
        local[k++] = (uint32_t)i;
    for (size_t i = 0; i < s->n_threads && i < c->n_klines; i++) {
      const ip_kline *kl = c->klines[i];
      if (s->threads[i].process != p || !kl)
        continue;
      for (size_t j = 0; j < kl->n_off; j++) {
        const ip_offcpu *o = &kl->off[j];
        uint32_t waker = o->waker != IP_NO_THREAD && o->waker < k ? local[o->waker] : IP_NO_THREAD;
        fn(ctx, (uint32_t)i, o, waker);
      }
    }
  }
  free(local);
}

void ip_critical_each_jump(const ip_critical *c, ip_jump_fn *fn, void *ctx) {
  for (size_t i = 0; i < c->n_pieces; i++) {
    const ip_cp_piece *p = &c->pieces[i];
    if (p->woke == IP_NO_THREAD || p->woke >= c->n_klines || !c->klines[p->woke])
      continue;
    const ip_kline *kl = c->klines[p->woke];
    for (size_t j = 0; j < kl->n_off; j++) {
      const ip_offcpu *o = &kl->off[j];
      if (o->blocked && o->waker != IP_NO_THREAD && o->out <= p->to && o->in >= p->to) {
        fn(ctx, p, o);
        break;
      }
    }
  }
}
