/* pmu_attr.h - the hardware counter the runtime's pmu transition mode opens:
 * instructions retired in the kernel only, counting for one thread.  Shared
 * by the runtime (runtime/produce/transitions.c, which opens it) and `record`
 * (convert/cli/record_hold.c, which tries it to know whether a run falls back
 * to kernel events). */
#ifndef INCLPROF_PMU_ATTR_H
#define INCLPROF_PMU_ATTR_H

#include <linux/perf_event.h>
#include <string.h>

static inline void ip_pmu_kernel_instructions(struct perf_event_attr *a) {
  memset(a, 0, sizeof *a);
  a->size = sizeof *a;
  a->type = PERF_TYPE_HARDWARE;
  a->config = PERF_COUNT_HW_INSTRUCTIONS;
  a->exclude_user = 1;
  a->exclude_hv = 1;
}

#endif
