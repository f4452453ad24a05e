/* export/chrome.h - `inclprof export --format chrome`: Chrome Trace Event
 * JSON ({"traceEvents":[...],"displayTimeUnit":"ns"}) with one complete
 * ("X") event per call, in the order the replay reported them, then "M"
 * events naming processes and threads.  A bounded export (the default)
 * keeps the longest calls that fit its size and --max-events: the one replay
 * measures every call's event and keeps the call (in memory up to a bound,
 * then in a temporary file), and the calls that fit are written after it.
 * An unbounded one writes each call as the replay reports it. */
#ifndef INCLPROF_EXPORT_CHROME_H
#define INCLPROF_EXPORT_CHROME_H

#include <stdint.h>
#include <stdio.h>

#include "export/exporter.h"
#include "model/model.h"

/* The size an export keeps under without --max-size: the DevTools trace
 * engine rejects a file of more than 0x1fffffe8 characters (512 MiB), and
 * a viewer needs several times the file's size in memory. */
#define IP_CHROME_DEFAULT_MAX_SIZE (256ull << 20)

typedef struct ip_chrome_writer ip_chrome_writer;

/* A writer for the options o (--thread, --min-duration, --max-events,
 * --max-size, --time-range) of a document on out; unbounded, it starts the
 * document on out at once. */
ip_chrome_writer *ip_chrome_new(const ip_export_opts *o, FILE *out);

/* The byte limit of o: --max-size, the default, or 0 (none). */
uint64_t ip_chrome_max_size(const ip_export_opts *o);

/* The visitor to hand to ip_session_load: it measures and keeps every call
 * it accepts (unbounded: writes it). */
const ip_call_visitor *ip_chrome_visitor(ip_chrome_writer *w);

/* After the replay of s: writes the calls that fit (unbounded: those not yet
 * written), the process and thread names of s, and the document's end, on
 * out. */
void ip_chrome_write(ip_chrome_writer *w, FILE *out, const ip_session *s);
/* With c (a trace with wake edges; else NULL): the wake edges as flow
 * arrows and the critical-path track, written with the names. */
void ip_chrome_set_critical(ip_chrome_writer *w, const ip_session *s, const ip_critical *c);

/* export/chrome_critical.c: the flow arrows of flows and a "critical path"
 * track per process, as events on out (events: those written so far, for
 * the separators), for the threads sel selects. */
void ip_chrome_critical(FILE *out, uint64_t *events, const ip_session *s, const ip_critical *c,
                        const ip_selection *sel, const ip_wake_flow *flows, size_t n_flows);

/* Calls written so far and calls left out to respect the bounds. */
uint64_t ip_chrome_written(const ip_chrome_writer *w);
uint64_t ip_chrome_left_out(const ip_chrome_writer *w);

/* When calls were left out: one line on err saying how many, the full size,
 * which bound, and the options that show more. */
void ip_chrome_report(const ip_chrome_writer *w, FILE *err);

void ip_chrome_free(ip_chrome_writer *w);

#endif
