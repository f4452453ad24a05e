/* export/perfetto_critical.h - the Perfetto export's track uuids, and its
 * part for the critical path (`--critical`, export/perfetto_critical.c). */
#ifndef INCLPROF_EXPORT_PERFETTO_CRITICAL_H
#define INCLPROF_EXPORT_PERFETTO_CRITICAL_H

#include "export/exporter.h"
#include "model/model.h"
#include "perfetto_trace.pb-c.h"

#define IP_PERFETTO_UUID_PROCESS(i)  ((1ull << 40) | (uint64_t)(i))
#define IP_PERFETTO_UUID_THREAD(i)   ((2ull << 40) | (uint64_t)(i))
#define IP_PERFETTO_UUID_CRITICAL(i) ((3ull << 40) | (uint64_t)(i)) /* process i's path */

typedef void ip_perfetto_put_fn(void *ctx, const Perfetto__Protos__TracePacket *p);

/* On the packet sequence seq, through put: per process a "critical path"
 * track (a child of the process's) with a slice per piece of the path, and
 * each wake edge of flows as a flow between an instant event on the
 * waker's thread track and one on the woken thread's; only for the threads
 * sel selects (whose tracks the export describes). */
void ip_perfetto_critical(const ip_session *s, const ip_critical *c, const ip_selection *sel,
                          const ip_wake_flow *flows, size_t n_flows, uint32_t seq,
                          ip_perfetto_put_fn *put, void *ctx);

#endif
