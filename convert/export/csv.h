/* export/csv.h - the data values as RFC 4180 CSV, one row per function,
 * module, thread or process (`inclprof export --format csv --by LEVEL`). */
#ifndef INCLPROF_EXPORT_CSV_H
#define INCLPROF_EXPORT_CSV_H

#include <stdio.h>

#include "export/exporter.h"
#include "model/model.h"

/* Writes the header line and one row per key with values in the threads sel
 * selects (NULL: all), sorted by Elapsed Inclusive (descending); percentages
 * stay over the whole session.  Returns 0, or -1 on a write error. */
int ip_export_csv(const ip_session *s, ip_level level, const ip_selection *sel, FILE *out);
/* Writes s as one CSV field, quoted when it holds a comma, quote or line
 * break ("" inside). */
void ip_csv_field(FILE *out, const char *s);

#endif
