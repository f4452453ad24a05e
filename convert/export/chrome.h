/* export/chrome.h - `inclprof export --format chrome`: Chrome Trace Event
 * JSON ({"traceEvents":[...],"displayTimeUnit":"ns"}) with one complete
 * ("X") event per call, written while the traces are replayed (memory does
 * not grow with the number of calls), then "M" events naming processes and
 * threads. */
#ifndef INCLPROF_EXPORT_CHROME_H
#define INCLPROF_EXPORT_CHROME_H

#include <stdint.h>
#include <stdio.h>

#include "export/exporter.h"
#include "model/profile.h"

typedef struct ip_chrome_writer ip_chrome_writer;

/* Starts the JSON document on out; the options give --thread, --min-duration,
 * --max-events and --time-range. */
ip_chrome_writer *ip_chrome_begin(FILE *out, const ip_export_opts *o);

/* The visitor to hand to ip_session_load: it writes every call it accepts. */
const ip_call_visitor *ip_chrome_visitor(ip_chrome_writer *w);

/* Calls written so far and calls left out by --max-events. */
uint64_t ip_chrome_written(const ip_chrome_writer *w);
uint64_t ip_chrome_over_limit(const ip_chrome_writer *w);

/* Writes the process and thread names of s, closes the document, frees w. */
void ip_chrome_end(ip_chrome_writer *w, const ip_session *s);

/* Frees w without finishing the document (the load failed). */
void ip_chrome_discard(ip_chrome_writer *w);

#endif
