/* pmu_attr.h - the perf events the runtime's transition modes open, named
 * once for the runtime (runtime/produce/transitions.c, which opens them),
 * `record` (convert/cli/record_hold.c, which tries the counter to know
 * whether a run falls back to kernel events, and holds the kernel events
 * registered so that its program pays neither their registration nor their
 * release) and the grant server (perfmon/grant_server.c, which opens a
 * thread's kevents events for a runtime that may not): the pmu mode's
 * counter of instructions retired in the kernel; kevents' tracepoint of
 * every system call's entry and its software event of page faults; the
 * scheduler's wake-up tracepoints (kevents' wake edges). */
#ifndef INCLPROF_PMU_ATTR_H
#define INCLPROF_PMU_ATTR_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* Where tracefs gives the id of the tracepoint raw_syscalls:sys_enter. */
#define IP_SYS_ENTER_ID_PATHS                                                                      \
  "/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",                                          \
      "/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id"

/* Where tracefs describes the scheduler's wake-up tracepoints: sched_waking
 * (a thread wakes another, in the waker's context) and sched_wakeup_new (a
 * thread starts a new one, in its creator's context); their id and format. */
#define IP_SCHED_TRACEPOINT_DIRS                                                                   \
  "/sys/kernel/tracing/events/sched", "/sys/kernel/debug/tracing/events/sched"

/* Where tracefs describes the tracepoint syscalls:sys_enter_futex (its id
 * and format): kevents' futex waits. */
#define IP_FUTEX_TRACEPOINT_DIRS                                                                   \
  "/sys/kernel/tracing/events/syscalls/sys_enter_futex",                                           \
      "/sys/kernel/debug/tracing/events/syscalls/sys_enter_futex"

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

/* What each kevents event records: a sample per event with its id and its
 * time on CLOCK_MONOTONIC_RAW (and, with context_switch, a record per switch). */
static inline void ip_pmu_kevents_records(struct perf_event_attr *a) {
  a->sample_period = 1;
  a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME;
  a->sample_id_all = 1;
  a->use_clockid = 1;
  a->clockid = CLOCK_MONOTONIC_RAW;
}

/* A thread's kevents ring event: a record for each of its system calls and
 * context switches. */
static inline void ip_pmu_kevents_ring(struct perf_event_attr *a, uint64_t tracepoint_id) {
  ip_pmu_sys_enter(a, tracepoint_id);
  a->context_switch = 1;
  ip_pmu_kevents_records(a);
}

/* A thread's page-fault event, whose records go into its ring. */
static inline void ip_pmu_kevents_faults(struct perf_event_attr *a) {
  ip_pmu_page_faults(a);
  ip_pmu_kevents_records(a);
}

#endif
