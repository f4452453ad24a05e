/* trace_mutator.h - structure-aware mutations of inclprof trace images for
 * the trace-reader fuzzers (fuzz_trace.c under libFuzzer, fuzz_standalone.c):
 * edits of frames, protobuf fields, varints, lengths, crcs and EventBatch
 * arrays, and splices of frames between two traces. */
#ifndef INCLPROF_TRACE_MUTATOR_H
#define INCLPROF_TRACE_MUTATOR_H

#include <stddef.h>
#include <stdint.h>

/* One edit of the trace image in data (size bytes, room for max_size);
 * returns the new size.  Deterministic for a given seed and input. */
size_t ip_trace_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed);

/* The preamble and frames of d1 with a run of d2's frames spliced in, into
 * out; returns its size, 0 when either is not a framed trace. */
size_t ip_trace_crossover(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                          uint8_t *out, size_t max_out, unsigned seed);

#endif
