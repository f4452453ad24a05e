/* model/model.h - the model floor's public header, what the floors above may
 * use: the loaded profile (model/profile.h), its sums per level
 * (model/aggregate.h), selections (model/selection.h), the functions without
 * a row (model/skipped_fns.h), the critical path (model/critical.h), the
 * slowest calls (model/slowest.h), operations, latency distributions and the
 * names of code addresses (model/symbolize.h).  Loading and replay stay
 * behind it (model/loader.h, model/replay_pool.h).  The analyses over a
 * loaded profile are the floor above (analysis/analysis.h).  The model floor
 * calls read/ and util/. */
#ifndef INCLPROF_MODEL_H
#define INCLPROF_MODEL_H

#include "model/aggregate.h"
#include "model/critical.h"
#include "model/latency.h"
#include "model/slowest.h"
#include "model/operations.h"
#include "model/profile.h"
#include "model/selection.h"
#include "model/skipped_fns.h"
#include "model/symbolize.h"

#endif
