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
 *   call-dense share   runs of consecutive intervals whose mean holds a few
 *                      ns of the program once the probe cost is out
 *                      (ip_dense_run_add)
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

/* Stack levels whose probe-cost debts are kept apart; deeper frames share the
 * last. */
#define IP_OWED_LEVELS 32

/* The probe cost intervals did not hold, owed by the frames they ran in. */
typedef struct ip_probe_owed {
  uint64_t fx[IP_OWED_LEVELS]; /* by stack depth: ticks (IP_FX) */
  uint32_t top;                /* the deepest level that may owe */
} ip_probe_owed;

/* ip_probe_compensated with the cost an interval did not hold carried over.
 * c is a probe's cost as calibrated; in the program a probe's cost varies
 * around it (its ring store, the cache lines and branch history it shares
 * with the program), so an interval of call-dense code, a nanosecond or two
 * of the program between probes, is as often shorter than c as longer.
 * Clamping each at 0 would remove the probe cost only from the longer ones
 * and leave their excess over c in the values.  Instead the shortfall c - x
 * of a shorter interval is owed by its frame (the top of the stack, at
 * depth) and taken from that frame's next intervals, or its caller's once
 * it has returned (an interval at a lower depth: the debts of the levels
 * above pass to it); never from a callee's, so that a short function's own
 * time keeps what its probes left in it.  A debt is not capped: in a frame
 * whose intervals are mostly shorter than c (an interpreter's loop, a probe
 * or two every few ns) a cap of one probe's cost dropped the rest of each
 * shortfall and left the longer intervals' excess in the values; a frame's
 * values are its intervals less c each, as long as it has time on the CPU
 * to pay with.  off is the part of x the thread spent off the CPU (its
 * kernel-event records: preempted, blocked): the probes never ran in it, so
 * a debt is paid only from the rest, and a preemption or a wait keeps the
 * length the scheduler gave it. */
static inline uint64_t ip_probe_compensated_carry(uint64_t x, uint64_t c, uint64_t h,
                                                  uint32_t depth, ip_probe_owed *o, uint64_t off) {
  uint32_t d = depth < IP_OWED_LEVELS ? depth : IP_OWED_LEVELS - 1;
  uint64_t owed = o->fx[d];
  if (o->top > d) { /* the frames above d have returned (mostly the one above) */
    owed += o->fx[d + 1];
    o->fx[d + 1] = 0;
    for (uint32_t i = d + 2; i <= o->top; i++) {
      owed += o->fx[i];
      o->fx[i] = 0;
    }
    o->top = d;
  }
  if (x < c) {
    o->fx[d] = owed + (c - x);
    o->top = d;
    return 0;
  }
  uint64_t y = ip_probe_compensated(x, c, h);
  uint64_t on = y > off ? y - off : 0; /* what the debt may take */
  uint64_t paid = owed < on ? owed : on;
  o->fx[d] = owed - paid;
  return y - paid;
}

/* Non-transitional intervals ending at a probe counted together for the
 * share of call-dense ones: a run of this many consecutive intervals is
 * dense, all of them, when its mean, less the probes' cost, holds under
 * the threshold of the program's own time.  A clock that ticks in steps
 * (the TSC of AMD processors under a hypervisor: about 10 ns) reads an
 * interval of call-dense code as one step or two, which the calibrated
 * cost splits right where the threshold lies, so that interval by
 * interval the share moves by half as the calibration moves by a tenth of
 * a ns; a run's sum is read to within a step or two, its mean to within a
 * tenth of one.  A thread's last run, shorter, counts as not dense. */
#define IP_DENSE_RUN 16

typedef struct ip_dense_run {
  uint64_t x;     /* the run's ticks (IP_FX) */
  uint64_t extra; /* the probes' costs beyond cost each: pointer calls' hooks (IP_FX) */
  uint32_t n;     /* its intervals ending at a probe */
} ip_dense_run;

/* Takes an interval of x ticks (IP_FX) into the run: one ending at a probe
 * (probe 1) of cost cost (what a pointer call's hooks add to it, the caller
 * adds to r->extra), or, at a sample between probes, a part of one (probe
 * 0).  Returns how many intervals the run that ends makes dense:
 * IP_DENSE_RUN or none, or 0 while the run goes on.  h is what a probe
 * hides of its cost (ip_probe_compensated), dense the threshold. */
static inline uint64_t ip_dense_run_add(ip_dense_run *r, uint64_t x, int probe, uint64_t cost,
                                        uint64_t h, uint64_t dense) {
  r->x += x;
  r->n += (uint32_t)probe;
  if (r->n < IP_DENSE_RUN)
    return 0;
  uint64_t own = ip_probe_compensated(r->x, IP_DENSE_RUN * cost + r->extra, IP_DENSE_RUN * h);
  r->x = r->extra = 0;
  r->n = 0;
  return own < IP_DENSE_RUN * dense ? IP_DENSE_RUN : 0;
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

/* The off-CPU time its records give so far (preempted and blocked), in
 * compensated ticks (IP_FX): what ip_probe_compensated_carry's debt may not
 * take; 0 without kernel records. */
static inline uint64_t ip_kacc_off_fx(const ip_kacc *a) {
  uint64_t off = a->off[0] + a->off[1];
  return off < UINT64_MAX >> (IP_FX + 1) ? off << IP_FX : UINT64_MAX;
}

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
