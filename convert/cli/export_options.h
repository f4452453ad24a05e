/* cli/export_options.h - the command line of `inclprof export`, parsed and
 * checked once (the format, which options fit it, durations, ranges) into
 * the writers' ip_export_opts.  The option table, the usage text and the
 * checks of which option fits which format come from export/exporters.c. */
#ifndef INCLPROF_EXPORT_OPTIONS_H
#define INCLPROF_EXPORT_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "export/export.h"
#include "cli/cli_args.h"

typedef struct ip_export_args {
  const ip_exporter *format;
  const char *output; /* NULL = the format's default file, "-" = stdout */
  int raw;
  unsigned jobs; /* --jobs */
  char **inputs; /* trace files or directories (argv storage, or inclprof.data) */
  size_t n_inputs;
  ip_export_opts opts;
} ip_export_args;

/* Parses the arguments after `export` (argv[0] is "export").  Returns
 * IP_CLI_OK, IP_CLI_HELP (--help seen), or IP_CLI_ERROR with the one-line
 * message in m. */
int ip_export_parse_args(int argc, char **argv, ip_export_args *a, ip_cli_msg *m);

/* Prints the usage text of `inclprof export`. */
void ip_export_usage(FILE *out);

/* "250", "250ns", "1.5us", "2ms", "3s" -> nanoseconds.  0 on success, -1 if
 * malformed or out of range. */
int ip_parse_duration(const char *text, uint64_t *ns);

#endif
