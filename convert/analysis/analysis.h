/* analysis/analysis.h - the analysis floor's public header: what is computed
 * from loaded profiles, above the model: two builds compared with their
 * noise tests (analysis/diff.h, analysis/noise_test.h, analysis/ranktest.h),
 * the choice of `inclprof suggest` (analysis/suggest.h), samples and calls by
 * source line and instruction, with the disassembly (analysis/line_rows.h,
 * analysis/source_lines.h).  Runs are loaded through the model's one loader
 * (ip_session_load).  The analysis floor calls model/, read/ and util/. */
#ifndef INCLPROF_ANALYSIS_H
#define INCLPROF_ANALYSIS_H

#include "analysis/diff.h"
#include "analysis/line_rows.h"
#include "analysis/noise_test.h"
#include "analysis/ranktest.h"
#include "analysis/source_lines.h"
#include "analysis/suggest.h"

#endif
