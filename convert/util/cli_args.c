/* util/cli_args.c - option helpers shared by the converter's commands (see util/cli_args.h). */
#include "util/cli_args.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

int ip_parse_u64(const char *s, uint64_t max, uint64_t *out) {
  if (!s || !isdigit((unsigned char)*s))
    return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || v > max)
    return -1;
  *out = v;
  return 0;
}

int ip_load_inputs(ip_session *s, int argc, char **argv, int first, const ip_load_opts *o) {
  if (first >= argc) {
    char *def[] = {IP_DEFAULT_INPUT};
    return ip_session_load(s, def, 1, o);
  }
  return ip_session_load(s, argv + first, (size_t)(argc - first), o);
}

int ip_exit_status(const ip_session *s) { return s->n_damaged ? IP_EXIT_DAMAGED : IP_EXIT_OK; }
