/* util/cli_args.h - option parsing shared by the converter's commands: strict
 * numbers, the trace inputs (default inclprof.data) and the exit statuses. */
#ifndef INCLPROF_CLI_ARGS_H
#define INCLPROF_CLI_ARGS_H

#include <stdint.h>

#include "model/profile.h"

#define IP_EXIT_OK 0
#define IP_EXIT_ERROR 1    /* nothing usable: unreadable, not a trace, ... */
#define IP_EXIT_USAGE 2
#define IP_EXIT_DAMAGED 3  /* output produced from the part before damage */

#define IP_DEFAULT_INPUT "inclprof.data"

/* Parses a whole decimal number that fits in max; -1 otherwise. */
int ip_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* Loads the inputs argv[first..argc) (none: inclprof.data).  Returns 0 or -1
 * (the message is printed). */
int ip_load_inputs(ip_session *s, int argc, char **argv, int first, const ip_load_opts *o);

/* The exit status after output from a loaded session: IP_EXIT_DAMAGED when
 * any file was read only up to damage. */
int ip_exit_status(const ip_session *s);

#endif
