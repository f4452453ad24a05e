/* read/batch_decode.h - a one-pass decoder for the trace's most frequent record,
 * Record{events: EventBatch}, into arrays that are reused from batch to batch
 * (no allocation per batch, no separate counting pass).  It accepts exactly
 * the fields proto/inclprof.proto defines for EventBatch; anything else
 * (unknown fields of a newer minor version, unpacked arrays, malformed
 * varints) is left to protobuf-c, which stays the reference decoder. */
#ifndef INCLPROF_BATCH_DECODE_H
#define INCLPROF_BATCH_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "inclprof.pb-c.h"

typedef struct ip_batch_buf {
  Inclprof__Record rec; /* rec.events == &batch once decoded */
  Inclprof__EventBatch batch;
  /* allocated lengths of batch.dt, .code, .kernel_dt, .sample_addr, .kernel_wakee,
   * .coroutine_frame, .kernel_futex, .kernel_futex_op, .pointer_calls */
  size_t cap_dt, cap_code, cap_kernel, cap_sample_addr, cap_kernel_wakee, cap_coroutine_frame,
      cap_kernel_futex, cap_kernel_futex_op, cap_pointer_calls;
} ip_batch_buf;

void ip_batch_buf_init(ip_batch_buf *b);
void ip_batch_buf_free(ip_batch_buf *b);

/* Decodes the record bytes p[0..len) if they are an EventBatch record this
 * decoder handles: returns 1 with b->rec filled, 0 to let protobuf-c decode
 * them (including to reject them), -1 when out of memory. */
int ip_batch_decode(ip_batch_buf *b, const uint8_t *p, size_t len);

/* Checks p[0..len) without decoding the event arrays: 1 with *tid set when
 * it is an event batch record of the fields this decoder knows whose arrays
 * protobuf-c accepts (whole varints of at most 10 bytes), so that
 * ip_batch_decode or else protobuf-c decodes it to that batch (a code
 * above 32 bits is protobuf-c's); else 0.  A sixteenth of the cost of decoding. */
int ip_batch_peek(const uint8_t *p, size_t len, uint32_t *tid);

#endif
