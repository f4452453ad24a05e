/* latency_buckets.h - the buckets of the per-call distributions (the
 * converter's convert/model/latency.h; the runtime's aggregate mode keeps
 * them per call path): log-linear, IP_LAT_SUB sub-buckets per power of two.
 * A value below IP_LAT_SUB has a bucket of its own; above, a bucket spans
 * 2^(e - IP_LAT_SUB_BITS) for values in [2^e, 2^(e+1)), so its width is at
 * most 1/IP_LAT_SUB of any value in it, and its middle is within
 * 1/(2 * IP_LAT_SUB) (0.78 %) of every value in it.  Buckets are grouped in
 * rows of IP_LAT_SUB: row 0 holds 0 .. IP_LAT_SUB - 1, row r >= 1 the
 * values with their top bit at IP_LAT_SUB_BITS + r - 1. */
#ifndef INCLPROF_LATENCY_BUCKETS_H
#define INCLPROF_LATENCY_BUCKETS_H

#include <stdint.h>

#define IP_LAT_SUB_BITS 6
#define IP_LAT_SUB      (1u << IP_LAT_SUB_BITS)
#define IP_LAT_ROWS     (64 - IP_LAT_SUB_BITS + 1) /* 59 rows cover every uint64_t */
#define IP_LAT_BUCKETS  (IP_LAT_ROWS * IP_LAT_SUB)

/* The bucket of value v, without branches: with s the shift that leaves
 * v's top IP_LAT_SUB_BITS + 1 bits (0 below 2 IP_LAT_SUB), v >> s is
 * IP_LAT_SUB plus the column in row s + 1 (rows 0 and 1: v itself), so the
 * bucket is (v >> s) + s IP_LAT_SUB. */
static inline uint32_t ip_lat_bucket(uint64_t v) {
  unsigned s = (63u - IP_LAT_SUB_BITS) - (unsigned)__builtin_clzll(v | IP_LAT_SUB);
  return (uint32_t)(v >> s) + s * IP_LAT_SUB;
}

/* The smallest value of bucket b. */
static inline uint64_t ip_lat_bucket_low(uint32_t b) {
  uint32_t row = b / IP_LAT_SUB, sub = b % IP_LAT_SUB;
  if (row == 0)
    return sub;
  return (uint64_t)(IP_LAT_SUB + sub) << (row - 1);
}

/* The number of values in bucket b (1 in row 0 and 1). */
static inline uint64_t ip_lat_bucket_width(uint32_t b) {
  uint32_t row = b / IP_LAT_SUB;
  return row <= 1 ? 1 : (uint64_t)1 << (row - 1);
}

/* The value that stands for bucket b: its middle (exact in rows 0 and 1). */
static inline uint64_t ip_lat_bucket_mid(uint32_t b) {
  return ip_lat_bucket_low(b) + (ip_lat_bucket_width(b) - 1) / 2;
}

#endif
