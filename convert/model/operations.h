/* model/operations.h - a coroutine's operations: one operation is one
 * coroutine frame, from its ramp's start (the frame is made and the body's
 * first run begins) to the end of the body's last run before the frame is
 * destroyed, across threads and suspensions.  Built from the runs of
 * coroutine bodies whose frame the trace names (ip_thread.coro, loaded with
 * ip_load_opts.operations), in clock order per process. */
#ifndef INCLPROF_OPERATIONS_H
#define INCLPROF_OPERATIONS_H

#include <stddef.h>
#include <stdint.h>

#include "model/latency.h"
#include "model/profile.h"

/* One operation. */
typedef struct ip_operation {
  uint32_t func;                 /* the coroutine body's function */
  uint32_t process;              /* index into ip_session.processes */
  uint64_t frame;                /* the frame's address */
  uint64_t wall_start, wall_end; /* by the clock, ns from the session start */
  uint64_t ran;       /* the ramp's time before the first run, and the runs' Elapsed Inclusive */
  uint64_t suspended; /* the clock time between its runs; its latency: ran + suspended */
  uint32_t runs;      /* the body's runs (its start and resumptions) */
  int start_seen;     /* its start (the ramp's run of the body) is in the trace */
  uint32_t thread_start, thread_end; /* the threads of its first and last runs */
  uint64_t tl_start, tl_end;         /* where they begin and end on their threads' timelines */
} ip_operation;

/* The operations of one coroutine (its body's function). */
typedef struct ip_coro_ops {
  uint32_t func;
  uint64_t n;            /* operations */
  uint64_t unstarted;    /* of them, those whose start is not in the trace */
  uint64_t runs;         /* the body's runs */
  uint64_t latency_ns;   /* their latencies, summed */
  uint64_t ran_ns;       /* the time they ran, summed */
  uint64_t suspended_ns; /* the time they were suspended, summed */
  ip_lat latency;        /* the distribution of their latencies */
} ip_coro_ops;

typedef struct ip_operations {
  ip_operation *ops; /* in order of their start per process */
  size_t n_ops;
  ip_coro_ops *by_coro; /* one per coroutine, most total latency first */
  size_t n_coro;
  uint64_t runs_without_frame; /* runs of coroutine bodies whose frame is unknown */
} ip_operations;

/* The length of a coroutine body's name without its " [coroutine body]"
 * suffix: the coroutine's (its ramp's) name. */
size_t ip_coroutine_name_len(const char *body);
/* The name of an operation of the coroutine body `body` in the timeline
 * exports (malloc'd): "RAMP [coroutine operation]", apart from the ramp's
 * own calls. */
char *ip_operation_name(const char *body);

/* Links the runs of s's coroutine bodies into operations. */
void ip_operations_build(const ip_session *s, ip_operations *out);
void ip_operations_free(ip_operations *o);

#endif
