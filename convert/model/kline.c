/* model/kline.c - a thread's kernel timeline for the critical path
 * (model/critical.h), built from its kernel-event records while the first
 * replay streams them: each switch-out to the next switch-in as one off-CPU
 * time (preempted or blocked, with the call path it went out in), and each
 * wake-up it made.  An event ends an open off-CPU time: the thread ran then
 * (the records' times are converted from another clock and may put the
 * switch-in a little after it).  A sleep that begins inside a futex wait
 * (its KEV_FUTEX_WAIT record, then no other system call and no event) gets
 * the futex word it waited on. */
#include <stdlib.h>

#include "model/critical.h"
#include "model/loader.h"
#include "util/util.h"

ip_kline *ip_kline_new(void) {
  ip_kline *k = ip_must_calloc(1, sizeof *k);
  k->creator = IP_NO_THREAD;
  return k;
}

/* Ends the open off-CPU time at tick. */
static void back_in(ip_kline *k, uint64_t tick) {
  ip_offcpu *o = &k->off[k->n_off];
  o->in = tick > o->out ? tick : o->out;
  k->n_off++;
  k->pending = 0;
}

void ip_kline_record(ip_kline *k, uint32_t kind, uint64_t tick, uint32_t arg, uint64_t futex,
                     uint32_t node) {
  int blocked = kind == INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED;
  switch (kind) {
  case INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED:
  case INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED:
    if (k->pending)
      back_in(k, tick);
    ip_must_grow((void **)&k->off, &k->cap_off, k->n_off + 1, sizeof *k->off);
    k->off[k->n_off] = (ip_offcpu){.out = tick,
                                   .waker = IP_NO_THREAD,
                                   .out_node = node,
                                   .futex = blocked && k->futex_open ? k->futex : 0,
                                   .futex_op = blocked && k->futex_open ? k->futex_op : 0,
                                   .blocked = (uint8_t)blocked};
    k->pending = 1;
    if (blocked)
      k->futex_open = 0;
    break;
  case INCLPROF__KERNEL_EVENT_KIND__KEV_FUTEX_WAIT:
    k->futex_open = futex != 0;
    k->futex = futex;
    k->futex_op = arg;
    k->futex_tick = tick;
    k->futex_last = 1;
    return;
  case INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL:
    /* The kernel writes a futex call's two records (the system call's, the
     * futex wait's) one right after the other, in the order their
     * tracepoints were registered: a system-call record right after the
     * wait's is its own, any other ends the wait (it did not sleep). */
    if (k->futex_open && !(k->futex_last && tick - k->futex_tick <= k->futex_slack))
      k->futex_open = 0;
    break;
  case INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN:
    if (k->pending)
      back_in(k, tick);
    break;
  case INCLPROF__KERNEL_EVENT_KIND__KEV_WAKE:
    ip_must_grow((void **)&k->wake, &k->cap_wake, k->n_wake + 1, sizeof *k->wake);
    k->wake[k->n_wake++] = (ip_wake){tick, arg, node};
    break;
  case INCLPROF__KERNEL_EVENT_KIND__KEV_LOST: /* what happened meanwhile is unknown */
    k->pending = 0;
    k->futex_open = 0;
    break;
  default:
    break;
  }
  k->futex_last = 0;
}

void ip_kline_event(ip_kline *k, uint64_t tick) {
  if (!k->started) {
    k->started = 1;
    k->first = tick;
  }
  if (tick > k->last)
    k->last = tick;
  k->futex_open = 0; /* the thread runs its own code: any system call is over */
  if (k->pending && tick > k->off[k->n_off].out)
    back_in(k, tick);
}

void ip_kline_ended(ip_file *f, ip_tstate *ts, uint64_t tick) {
  (void)f;
  if (ts->kl)
    ts->kl->end = tick;
}

void ip_kline_finish(ip_kline *k, uint64_t tick) {
  if (k->pending)
    back_in(k, tick);
}
