/* export/call_log.h - every call of the selected threads, kept while the
 * traces are replayed and handed back per thread as properly nested opens
 * and closes in time order.  The replay reports a call when it ends (callees
 * before their caller); timeline formats (speedscope's evented profiles,
 * Perfetto's slices) need each call's begin before its callees' begins, so
 * the calls are kept (40 bytes each) in the order they began: a call's
 * callers take their slots when its first callee ends, as the replay
 * reports every call with its depth on the thread's stack, the callers'
 * being the depths below.  The few calls out of the order by start (calls
 * at equal starts) move into place at the end.
 * Beyond a bound, calls go to a temporary file in sorted runs ($TMPDIR, else
 * /tmp) and are merged back, so memory stays bounded on any trace. */
#ifndef INCLPROF_EXPORT_CALL_LOG_H
#define INCLPROF_EXPORT_CALL_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "export/exporter.h"

typedef struct ip_call_log ip_call_log;

/* One call as the replay reported it. */
typedef struct ip_logged_call {
  uint64_t start_ns, dur_ns, app_ns;
  uint64_t seq; /* order of arrival in its thread */
  uint32_t func, depth;
} ip_logged_call;

/* The exporters' bound: 32 MiB of calls in memory (their slots, the open
 * calls' and those left out since the last run included; a run is sorted in
 * place). */
#define IP_CALL_LOG_MEMORY_CALLS (((size_t)32 << 20) / sizeof(ip_logged_call))

/* A log of the calls o keeps (the threads and time range of o->sel, calls
 * of at least o->min_duration_ns), holding at most max_in_memory calls in
 * memory; its visitor feeds it.  A call left out takes its callees with it:
 * they are as short and inside it. */
ip_call_log *ip_call_log_new(const ip_export_opts *o, size_t max_in_memory);
const ip_call_visitor *ip_call_log_visitor(ip_call_log *log);
void ip_call_log_free(ip_call_log *log);

/* What a timeline writer is told of one thread, in time order: open before
 * the callees' opens, close after their closes.  close_ns = start + dur. */
typedef struct ip_timeline_fn {
  void *ctx;
  void (*open)(void *ctx, const ip_logged_call *c);
  void (*close)(void *ctx, const ip_logged_call *c);
} ip_timeline_fn;

/* A call the log's visitor would keep (the caller has checked it), logged
 * as the visitor logs it. */
void ip_call_log_add(ip_call_log *log, const ip_session *s, const ip_thread *t, uint32_t func,
                     uint32_t depth, uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns);

/* A call of thread t at depth that the log's visitor would keep, left out
 * by the caller (it cannot be written): counted, not kept. */
void ip_call_log_drop(ip_call_log *log, const ip_session *s, const ip_thread *t, uint32_t depth);

/* A call of thread t at depth that the log does not keep (the caller does
 * not log every call it is told of): whatever is logged later of thread t
 * began after it. */
void ip_call_log_skip(ip_call_log *log, const ip_session *s, const ip_thread *t, uint32_t depth);

/* The number of calls logged for thread index t of s, dropped ones
 * included (0 when none). */
size_t ip_call_log_count(const ip_call_log *log, size_t t);

/* Hands every call logged so far (not those dropped) to fn, with its
 * thread's index, in no particular order. */
void ip_call_log_each(const ip_call_log *log,
                      void (*fn)(void *ctx, size_t thread, const ip_logged_call *c), void *ctx);

/* Sorts thread index t's calls into time order, hands them to fn and
 * frees them (each thread is replayed once). */
void ip_call_log_replay(ip_call_log *log, size_t t, const ip_timeline_fn *fn);

#endif
