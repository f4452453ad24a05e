/* model/skipped_fns.h - the program's own functions that have no rows because
 * the plugin gave them no probes (inlined into their callers, unused,
 * excluded, too small), and those whose rows miss the calls GCC inlined at
 * some call sites (partly inlined), read from the .inclprof.skipped sections
 * of the session's module files (skipped_fns.c). */
#ifndef INCLPROF_SKIPPED_FNS_H
#define INCLPROF_SKIPPED_FNS_H

#include <stddef.h>

#include "model/profile.h"

typedef enum {
  IP_SKIP_INLINED,
  IP_SKIP_UNUSED,
  IP_SKIP_EXCLUDED,
  IP_SKIP_SMALL,
  IP_SKIP_PARTLY, /* has a row, but was also inlined: those calls are the callers' */
  IP_SKIP_KINDS
} ip_skip_kind;

typedef struct ip_skipped_fn {
  ip_skip_kind kind;
  char *pretty, *file;
  unsigned line;
  char *detail; /* inlined: the callers it was inlined into; partly: where it was
                   inlined ("g at 1 site, h at 2 sites"); else the reason */
} ip_skipped_fn;

typedef struct ip_skipped {
  ip_skipped_fn *v;
  size_t n;
  size_t count[IP_SKIP_KINDS];
} ip_skipped;

/* The functions of every module of s that no unit instrumented, once each
 * (by name, file and line), leaving out those that have a row (instrumented
 * in another unit, or out of line in another module); and the functions with
 * a row that some unit inlined (IP_SKIP_PARTLY, once each, the places of all
 * units in one detail).  Modules that cannot be read add nothing. */
void ip_skipped_load(const ip_session *s, ip_skipped *out);

/* The partly inlined entry of the function PRETTY defined in FILE, or NULL. */
const ip_skipped_fn *ip_skipped_partly(const ip_skipped *k, const char *pretty, const char *file);
void ip_skipped_free(ip_skipped *k);
const char *ip_skip_kind_name(ip_skip_kind k);

#endif
