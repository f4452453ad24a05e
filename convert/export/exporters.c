/* export/exporters.c - the list of export formats.  A new format is one
 * file defining `const ip_exporter ip_exporter_NAME` and one X(NAME) below. */
#include "export/exporter.h"

#include <string.h>

#define IP_EXPORT_FORMATS(X)                                                                       \
  X(csv) X(pprof) X(chrome) X(callgrind) X(folded) X(html) X(speedscope) X(perfetto) X(locks)

#define DECLARE(name) extern const ip_exporter ip_exporter_##name;
IP_EXPORT_FORMATS(DECLARE)
#define ENTRY(name) &ip_exporter_##name,
const ip_exporter *const ip_exporters[] = {IP_EXPORT_FORMATS(ENTRY) NULL};

const ip_exporter *ip_exporter_find(const char *name) {
  for (const ip_exporter *const *e = ip_exporters; *e; e++)
    if (!strcmp((*e)->name, name))
      return *e;
  return NULL;
}

void ip_exporter_names(unsigned mask, char *buf, size_t len) {
  size_t n = 0, at = 0, total = 0;
  for (const ip_exporter *const *e = ip_exporters; *e; e++)
    total += ((*e)->options & mask) == mask;
  buf[0] = 0;
  for (const ip_exporter *const *e = ip_exporters; *e && at < len; e++) {
    if (((*e)->options & mask) != mask)
      continue;
    const char *sep = n == 0 ? "" : n + 1 == total ? " or " : ", ";
    at += (size_t)snprintf(buf + at, len - at, "%s%s", sep, (*e)->name);
    n++;
  }
}
