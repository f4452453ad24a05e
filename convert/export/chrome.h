/* export/chrome.h - `inclprof export --format chrome`: Chrome Trace Event
 * JSON ({"traceEvents":[...],"displayTimeUnit":"ns"}) with one complete
 * ("X") event per call, written while the traces are replayed (memory does
 * not grow with the number of calls), then "M" events naming processes and
 * threads.  A bounded export (the default) keeps the longest calls that fit
 * its size and --max-events: a first replay measures every call's event. */
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
 * --max-size, --time-range).  When they bound the export it starts by
 * surveying: its visitor measures the calls of a first replay. */
ip_chrome_writer *ip_chrome_new(const ip_export_opts *o);
int ip_chrome_surveying(const ip_chrome_writer *w);

/* The byte limit of o: --max-size, the default, or 0 (none). */
uint64_t ip_chrome_max_size(const ip_export_opts *o);

/* The visitor to hand to ip_session_load: it measures every call it accepts
 * while surveying, then writes the ones the survey kept. */
const ip_call_visitor *ip_chrome_visitor(ip_chrome_writer *w);

/* Ends the survey of the session surveyed (NULL: no survey was made, every
 * accepted call is written) and starts the JSON document on out. */
void ip_chrome_begin(ip_chrome_writer *w, FILE *out, const ip_session *surveyed);

/* Calls written so far and calls left out to respect the bounds. */
uint64_t ip_chrome_written(const ip_chrome_writer *w);
uint64_t ip_chrome_left_out(const ip_chrome_writer *w);

/* When calls were left out: one line on err saying how many, the full size,
 * which bound, and the options that show more. */
void ip_chrome_report(const ip_chrome_writer *w, FILE *err);

/* Writes the process and thread names of s, closes the document, frees w. */
void ip_chrome_end(ip_chrome_writer *w, const ip_session *s);

/* Frees w without finishing the document (the load failed). */
void ip_chrome_discard(ip_chrome_writer *w);

#endif
