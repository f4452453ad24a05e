/* interval_rules.h - how the interval between two of a thread's events is
 * compensated and told apart (the rules: "The values" and "Wait breakdown"
 * in docs/converter.md), once for the converter's replay of a trace
 * (convert/model/replay.c) and the runtime's aggregate fold
 * (runtime/produce/aggregate.c), so that a profile's values are a trace's:
 *
 *   the probe's cost   an interval ending at a probe holds the probe's cost
 *                      c, of which the probe hides up to h behind the code
 *                      of the interval (ip_probe_compensated)
 *   kernel records     the kevents mode's records of system calls, page
 *                      faults and context switches are taken, in tick order,
 *                      into an accumulator (ip_kacc) up to each event; an
 *                      event ends an off-CPU stretch still open
 *                      (ip_kacc_at_event)
 *   off-CPU inside     an interval without the transition bit whose records
 *                      put most of it off the CPU is transitional all the
 *                      same (ip_kacc_off_cpu_inside)
 *
 * Ticks are the trace's clock ticks; compensated values carry IP_FX
 * fractional bits.  Inline: both run it for every event. */
#ifndef INCLPROF_INTERVAL_RULES_H
#define INCLPROF_INTERVAL_RULES_H

#include <stdint.h>

#include "inclprof.pb-c.h"

/* Fractional bits of compensated tick values. */
#define IP_FX 8

/* Off-CPU time below this is within what the clock conversion of the
 * records may misplace (a few microseconds): it never makes an interval
 * transitional. */
#define IP_OFF_CPU_FLOOR_NS 20000

/* An interval of x ticks (IP_FX) ending at a probe, less the probe's cost c,
 * of which the probe hides up to h behind the code of the interval - at most
 * half of that code's time b: x = b + c - min(h, b / 2).  So x <= c is all
 * probe; up to c + h the code is 2 (x - c); beyond, x - (c - h): with
 * d = x - c (0 when negative), d + min(d, h). */
static inline uint64_t ip_probe_compensated(uint64_t x, uint64_t c, uint64_t h) {
  uint64_t d = x > c ? x - c : 0; /* without branches: d + min(d, h) */
  return d + (d < h ? d : h);
}

/* Kernel-event records taken since the last interval ended (kevents mode):
 * what the next transitional interval is split by. */
typedef struct ip_kacc {
  uint64_t off[2];   /* off-CPU ticks: preempted, blocked */
  uint64_t sys, pf;  /* system calls, page faults */
  int out_kind;      /* 0 on CPU; 1 + (0 preempted, 1 blocked) after a switch-out */
  uint64_t out_tick; /* when it went out */
  int in_taken;      /* an event closed the off-CPU time: its switch-in, which the
                        clock conversion placed after the event, adds nothing */
  int lost;          /* a KEV_LOST record: this interval's records are missing */
} ip_kacc;

/* Takes one record of kind at tick (records come in tick order). */
static inline void ip_kacc_record(ip_kacc *a, uint32_t kind, uint64_t tick) {
  switch (kind) {
  case INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL:
    a->sys++;
    break;
  case INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT:
    a->pf++;
    break;
  case INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED:
  case INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED:
    a->out_kind = 1 + (kind == INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED);
    a->out_tick = tick;
    a->in_taken = 0;
    break;
  case INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN:
    if (a->in_taken) { /* closed at the event before it already */
      a->in_taken = 0;
      break;
    }
    if (a->out_kind && tick > a->out_tick)
      a->off[a->out_kind - 1] += tick - a->out_tick;
    a->out_kind = 0;
    break;
  case INCLPROF__KERNEL_EVENT_KIND__KEV_LOST: /* read at a probe or a flush: on the CPU */
    a->lost = 1;
    a->out_kind = a->in_taken = 0;
    break;
  default: /* a wake-up of another thread (no wait), or a kind of a newer minor version */
    break;
  }
}

/* An event at tick: the thread was running then.  A switch-out whose
 * switch-in the records place later (the records' times are converted from
 * another clock, which can put them a few microseconds off) ends here. */
static inline void ip_kacc_at_event(ip_kacc *a, uint64_t tick) {
  if (!a->out_kind)
    return;
  if (tick > a->out_tick)
    a->off[a->out_kind - 1] += tick - a->out_tick;
  a->out_kind = 0;
  a->in_taken = 1;
}

/* The records taken since the last interval ended add nothing to the next:
 * none, and no switch-out still open. */
static inline int ip_kacc_empty(const ip_kacc *a) {
  return !(a->off[0] | a->off[1] | a->sys | a->pf) && !a->out_kind && !a->lost;
}

/* Whether the records taken into a non-transitional interval of raw ticks
 * hold a switch for most of it (and at least floor_ticks, the ticks of
 * IP_OFF_CPU_FLOOR_NS).  A probe loads the ring's head before it reads the
 * clock, and a flush takes the records up to its start: a preemption
 * between the two lands in the interval that ends at that probe (or at the
 * first one after the flush), while the head it moved marks the next
 * interval, or none.  The records still place the switch-out and its
 * switch-in here, and the interval is transitional. */
static inline int ip_kacc_off_cpu_inside(const ip_kacc *a, uint64_t raw, uint64_t floor_ticks) {
  uint64_t off = a->off[0] + a->off[1];
  return off > raw / 2 && off >= floor_ticks;
}

#endif
