/* pmu_attr.h - the perf events the runtime's transition modes open, named
 * once for the runtime (runtime/produce/transitions.c, which opens them)
 * and `record` (convert/cli/record_hold.c, which tries the counter to know
 * whether a run falls back to kernel events, and holds the kernel events
 * registered so that its program pays neither their registration nor their
 * release): the pmu mode's counter of instructions retired in the kernel;
 * kevents' tracepoint of every system call's entry and its software event
 * of page faults. */
#ifndef INCLPROF_PMU_ATTR_H
#define INCLPROF_PMU_ATTR_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

/* Where tracefs gives the id of the tracepoint raw_syscalls:sys_enter. */
#define IP_SYS_ENTER_ID_PATHS                                                                      \
  "/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",                                          \
      "/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id"

static inline void ip_pmu_kernel_instructions(struct perf_event_attr *a) {
  memset(a, 0, sizeof *a);
  a->size = sizeof *a;
  a->type = PERF_TYPE_HARDWARE;
  a->config = PERF_COUNT_HW_INSTRUCTIONS;
  a->exclude_user = 1;
  a->exclude_hv = 1;
}

/* The tracepoint raw_syscalls:sys_enter of id tracepoint_id. */
static inline void ip_pmu_sys_enter(struct perf_event_attr *a, uint64_t tracepoint_id) {
  memset(a, 0, sizeof *a);
  a->size = sizeof *a;
  a->type = PERF_TYPE_TRACEPOINT;
  a->config = tracepoint_id;
}

static inline void ip_pmu_page_faults(struct perf_event_attr *a) {
  memset(a, 0, sizeof *a);
  a->size = sizeof *a;
  a->type = PERF_TYPE_SOFTWARE;
  a->config = PERF_COUNT_SW_PAGE_FAULTS;
}

#endif
