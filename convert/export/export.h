/* export/export.h - the export floor's public header, what the command line
 * may use: the export formats and the options their writers read
 * (export/exporter.h), the progress line of long exports (export/progress.h)
 * and the pprof files of `inclprof diff` (export/diff_pprof.h).  The
 * export floor calls model/ and util/. */
#ifndef INCLPROF_EXPORT_H
#define INCLPROF_EXPORT_H

#include "export/diff_pprof.h"
#include "export/exporter.h"
#include "export/progress.h"

#endif
