/* read/read.h - the read floor's public header, what the floors above may use:
 * trace files named by TRACE|DIR arguments (read/trace_paths.h), read record
 * by record (read/trace_reader.h), event batches checked and decoded in one
 * pass (read/batch_decode.h), a file's Trailer from its last bytes
 * (read/trace_tail.h), its Index, Trailer and Footer (read/trace_index.h).  The read floor calls only util/. */
#ifndef INCLPROF_READ_H
#define INCLPROF_READ_H

#include "read/batch_decode.h"
#include "read/trace_paths.h"
#include "read/trace_index.h"
#include "read/trace_reader.h"
#include "read/trace_tail.h"

#endif
