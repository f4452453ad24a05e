/* model/model.h - the model floor's public header, what the floors above may
 * use: the loaded profile (model/profile.h), its sums per level
 * (model/aggregate.h), selections (model/selection.h), the functions without
 * a row (model/skipped_fns.h), the critical path (model/critical.h), samples and calls by source line and
 * instruction (model/line_rows.h), two builds compared with their noise tests
 * (model/diff.h, model/noise_test.h, model/ranktest.h) and the choice of
 * `inclprof suggest` (model/suggest.h).  Loading and replay stay behind it
 * (model/loader.h, model/replay_pool.h, model/symbolize.h).  The model floor
 * calls read/ and util/. */
#ifndef INCLPROF_MODEL_H
#define INCLPROF_MODEL_H

#include "model/aggregate.h"
#include "model/critical.h"
#include "model/diff.h"
#include "model/latency.h"
#include "model/slowest.h"
#include "model/line_rows.h"
#include "model/noise_test.h"
#include "model/operations.h"
#include "model/profile.h"
#include "model/ranktest.h"
#include "model/selection.h"
#include "model/skipped_fns.h"
#include "model/suggest.h"

#endif
