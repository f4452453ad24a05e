/* trace_footer.h - the Footer frame that ends a trace file with an index
 * (docs/trace-format.md, "Index and Footer"): always IP_FOOTER_FRAME_LEN
 * bytes, so that a reader finds it, and through it the Trailer and Index
 * frames before it, from the file's last bytes.  The runtime writes it
 * (runtime/sink/trace_index.c), the converter reads it
 * (convert/read/trace_index.c, trace_tail.c). */
#ifndef INCLPROF_TRACE_FOOTER_H
#define INCLPROF_TRACE_FOOTER_H

#include <stdint.h>

/* Length 12, Record{footer: index_bytes, trailer_bytes as fixed32}, CRC. */
#define IP_FOOTER_FRAME_LEN 17u

/* Writes the Footer frame of an Index frame of index_bytes and a Trailer
 * frame of trailer_bytes into out. */
void ip_footer_encode(uint8_t out[IP_FOOTER_FRAME_LEN], uint32_t index_bytes,
                      uint32_t trailer_bytes);

/* Whether the IP_FOOTER_FRAME_LEN bytes at p are a Footer frame (its CRC
 * checked); then *index_bytes and *trailer_bytes are its fields. */
int ip_footer_decode(const uint8_t *p, uint32_t *index_bytes, uint32_t *trailer_bytes);

#endif
