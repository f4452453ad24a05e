/* export/options.h - the options of `inclprof export`, parsed and checked
 * once (which options fit which format, durations, ranges) so every writer
 * reads plain values. */
#ifndef INCLPROF_EXPORT_OPTIONS_H
#define INCLPROF_EXPORT_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/aggregate.h"
#include "model/profile.h"
#include "model/selection.h"

typedef enum ip_export_format {
  IP_FMT_CSV,
  IP_FMT_PPROF,
  IP_FMT_CHROME,
  IP_FMT_CALLGRIND,
  IP_FMT_FOLDED
} ip_export_format;

/* Which measure a format puts first (pprof's default sample type, callgrind's
 * first event, the folded value). */
typedef enum ip_export_value {
  IP_VALUE_ELAPSED,
  IP_VALUE_APPLICATION,
  IP_VALUE_SAMPLES
} ip_export_value;

typedef struct ip_export_opts {
  ip_export_format format;
  const char *output;          /* NULL = default file name, "-" = stdout */
  ip_level by;                 /* csv only: --by LEVEL (default function) */
  int merge_threads;
  ip_export_value value;
  int value_given;             /* --value was on the command line */
  uint64_t min_duration_ns;    /* chrome: calls shorter are left out */
  uint64_t max_events;         /* chrome: 0 = no limit */
  ip_selection sel;            /* --thread, --process; chrome: --time-range */
  int raw;
  char **inputs;               /* trace files or directories (argv storage) */
  size_t n_inputs;
} ip_export_opts;

enum { IP_EXPORT_PARSE_OK = 0, IP_EXPORT_PARSE_HELP = 1, IP_EXPORT_PARSE_ERROR = -1 };

/* Parses the arguments after `export` (argv[0] is "export").  Returns
 * IP_EXPORT_PARSE_OK, IP_EXPORT_PARSE_HELP (--help seen), or
 * IP_EXPORT_PARSE_ERROR with a one-line message in err.  o->inputs points
 * into argv (or at a static default, IP_DEFAULT_INPUT). */
int ip_export_parse_args(int argc, char **argv, ip_export_opts *o, char *err, size_t errlen);

/* Prints the usage text of `inclprof export`. */
void ip_export_usage(FILE *out);

/* "250", "250ns", "1.5us", "2ms", "3s" -> nanoseconds.  0 on success, -1 if
 * malformed or out of range. */
int ip_parse_duration(const char *text, uint64_t *ns);

/* Format name ("pprof") and default output file ("inclprof.pb.gz"). */
const char *ip_export_format_name(ip_export_format f);
const char *ip_export_default_output(ip_export_format f);

#endif
