/* flush.c - encodes a run of in-memory events as one EventBatch frame and
 * appends it to the trace with a single write().  No allocation: the arrays
 * and the frame are built in the thread's preallocated scratch area, so this
 * also runs inside a fatal-signal handler.  Descriptor pointers and indirect
 * targets become gids here (registry.c), never in a probe. */
#include <libdeflate.h>
#include <string.h>

#include "rt.h"
#include "event_batch_wire.h"
#include "trace_frame.h"

static uint32_t code_of(uint64_t arg, int in_signal) {
  unsigned kind = (unsigned)(arg & 7);
  switch (kind) {
  case IP_K_ENTER:
  case IP_K_EXIT:
  case IP_K_CALL:
  case IP_K_RET:
    return ip_gid_of_desc((const struct inclprof_fn *)(uintptr_t)(arg & ~7ull), in_signal) << 3 |
           kind;
  case IP_K_CALL_IND:
    return ip_gid_of_addr((uintptr_t)(arg >> 3), in_signal) << 3 | INCLPROF__EVENT_KIND__EV_CALL;
  case IP_K_RET_IND:
    return ip_gid_of_addr((uintptr_t)(arg >> 3), in_signal) << 3 | INCLPROF__EVENT_KIND__EV_RET;
  case IP_K_SAMPLE:
    return (uint32_t)((arg >> 3) & 1) << 3 | INCLPROF__EVENT_KIND__EV_SAMPLE;
  default: /* IP_K_CONTROL: the file's code is stored above the private kind */
    return (uint32_t)(arg >> 3);
  }
}

/* Recent descriptor/target -> gid answers.  Keyed by the descriptor (or
 * indirect target) without the kind bits, so a function's ENTER and EXIT
 * share an entry instead of evicting each other. */
enum { CODE_CACHE = 256 };
struct code_cache {
  uint64_t key[CODE_CACHE];
  uint32_t gid[CODE_CACHE];
};

static inline uint32_t cached_code(struct code_cache *c, uint64_t arg, int in_signal) {
  unsigned kind = (unsigned)(arg & 7);
  if (kind > IP_K_RET_IND)
    return code_of(arg, in_signal); /* samples and control events: no lookup */
  /* descriptors: clear all three kind bits; indirect targets (kinds 4, 5 =
   * 0b10x): clear only bit 0, which keeps them apart from descriptor keys. */
  uint64_t key = kind <= IP_K_RET ? arg & ~7ull : arg & ~1ull;
  size_t h = (size_t)((key >> 3) ^ (key >> 12)) & (CODE_CACHE - 1);
  if (IP_UNLIKELY(c->key[h] != key)) {
    c->key[h] = key;
    c->gid[h] = code_of(key | (kind <= IP_K_RET ? IP_K_ENTER : IP_K_CALL_IND), in_signal) >> 3;
  }
  uint32_t file_kind = kind <= IP_K_RET        ? kind
                       : kind == IP_K_CALL_IND ? (uint32_t)INCLPROF__EVENT_KIND__EV_CALL
                                               : (uint32_t)INCLPROF__EVENT_KIND__EV_RET;
  return c->gid[h] << 3 | file_kind;
}

#define TAG(field, wire) ((uint8_t)IP_WIRE_KEY(field, wire))
#define HEADER_ROOM      64u /* frame length + Record tag/length + the batch's scalar fields */

/* Appends a batch's kernel-event records (kevents mode) at p: kernel_dt,
 * kernel_base_tick, kernel_lost.  Returns the new end. */
static uint8_t *put_kernel_events(const struct ip_kev_list *kl, uint8_t *p) {
  if (kl->lost) {
    p = ip_put_varint(p, TAG(IP_TAG_BATCH_KERNEL_LOST, IP_WIRE_VARINT));
    return ip_put_varint(p, 1);
  }
  if (!kl->n)
    return p;
  uint64_t base = kl->kev[0].tick, prev = base;
  size_t len = 0;
  for (size_t i = 0; i < kl->n; i++) {
    uint64_t tick = kl->kev[i].tick < prev ? prev : kl->kev[i].tick;
    len += ip_varint_len((tick - prev) << 3 | kl->kev[i].kind);
    prev = tick;
  }
  p = ip_put_varint(p, TAG(IP_TAG_BATCH_KERNEL_DT, IP_WIRE_LEN));
  p = ip_put_varint(p, len);
  prev = base;
  for (size_t i = 0; i < kl->n; i++) {
    uint64_t tick = kl->kev[i].tick < prev ? prev : kl->kev[i].tick;
    p = ip_put_varint(p, (tick - prev) << 3 | kl->kev[i].kind);
    prev = tick;
  }
  p = ip_put_varint(p, TAG(IP_TAG_BATCH_KERNEL_BASE, IP_WIRE_VARINT));
  return ip_put_varint(p, base);
}

/* Writes one EventBatch frame for ev[0..n).  The batch is encoded in a single
 * pass straight into the protobuf wire format - the two packed arrays side by
 * side in the scratch area - rather than through protobuf-c, which would walk
 * every array twice (sizing, then packing): this is the flush's inner loop and
 * its time is time the program waits.  The reader decodes it with protobuf-c
 * like every other record, and the tests round-trip it. */
void ip_encode_batch(uint8_t *scratch, size_t scratch_len, uint32_t tid, uint64_t seq,
                     const struct ip_event *ev, size_t n, const struct ip_kev_list *kl,
                     int in_signal) {
  if (n * 15 + 2 * HEADER_ROOM + kl->n * 10 >
      scratch_len) { /* cannot happen with IP_SCRATCH_BYTES */
    atomic_fetch_add(&ip_st.dropped, n);
    return;
  }
  uint8_t *dt_start = scratch + HEADER_ROOM;
  uint8_t *code_start = dt_start + n * 10 + 16; /* after the worst-case dt bytes + code's tag/len */
  uint8_t *dp = dt_start, *cp = code_start;
  size_t first = 0;
  while (first < n && ev[first].arg == 0) /* see the loop below */
    first++;
  if (first == n)
    return; /* nothing to write; the seq is not used */
  uint64_t base = ev[first].tick & ~IP_T_BIT, prev = base;
  struct code_cache cache;
  memset(cache.key, 0, sizeof cache.key);
  /* Consecutive events often name the same function (a leaf's ENTER and
   * EXIT, recursion): compare with the previous one before hashing. */
  uint64_t last_desc = 0;
  uint32_t last_gid = 0;
  size_t written = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t arg = ev[i].arg;
    /* A slot reserved by a probe that a fatal signal interrupted before it
     * filled the slot (only a fatal-signal flush can see one): arg 0 is
     * never an event (it would be the entry of a NULL descriptor). */
    if (IP_UNLIKELY(arg == 0))
      continue;
    written++;
    uint64_t tick = ev[i].tick & ~IP_T_BIT;
    /* An event written from a signal handler that interrupted a probe
     * between its reservation and its clock read is older than its slot's
     * predecessor: it happened at the same instant as far as we can tell. */
    if (tick < prev)
      tick = prev;
    dp = ip_put_varint(dp, (tick - prev) << 1 | ev[i].tick >> 63);
    prev = tick;
    uint32_t kind = (uint32_t)(arg & 7), code;
    if (kind <= IP_K_RET) {
      if ((arg & ~7ull) != last_desc) {
        last_desc = arg & ~7ull;
        last_gid = cached_code(&cache, last_desc, in_signal) >> 3;
      }
      code = last_gid << 3 | kind;
    } else {
      code = cached_code(&cache, arg, in_signal);
    }
    cp = ip_put_varint(cp, code);
  }
  size_t dt_len = (size_t)(dp - dt_start), code_len = (size_t)(cp - code_start);
  /* Pack: dt bytes stay put; the code field (tag, length, bytes) follows them. */
  dp = ip_put_varint(dp, TAG(IP_TAG_BATCH_CODE, IP_WIRE_LEN)); /* one byte */
  dp = ip_put_varint(dp, code_len);
  memmove(dp, code_start, code_len);
  uint8_t *end = put_kernel_events(kl, dp + code_len);

  size_t batch_len = 1 + ip_varint_len(tid) + 1 + ip_varint_len(seq) + 1 + ip_varint_len(base) + 1 +
                     ip_varint_len(dt_len) + (size_t)(end - dt_start);
  size_t record_len = 1 + ip_varint_len(batch_len) + batch_len;
  size_t head_len = ip_varint_len(record_len) + (record_len - (size_t)(end - dt_start));
  uint8_t *frame = dt_start - head_len, *h = frame;
  h = ip_put_varint(h, record_len);
  uint8_t *record = h;
  h = ip_put_varint(h, TAG(IP_TAG_RECORD_EVENTS, IP_WIRE_LEN)); /* Record.events */
  h = ip_put_varint(h, batch_len);
  h = ip_put_varint(h, TAG(IP_TAG_BATCH_TID, IP_WIRE_VARINT));
  h = ip_put_varint(h, tid);
  h = ip_put_varint(h, TAG(IP_TAG_BATCH_SEQ, IP_WIRE_VARINT));
  h = ip_put_varint(h, seq);
  h = ip_put_varint(h, TAG(IP_TAG_BATCH_BASE_TICK, IP_WIRE_VARINT));
  h = ip_put_varint(h, base);
  h = ip_put_varint(h, TAG(IP_TAG_BATCH_DT, IP_WIRE_LEN));
  ip_put_varint(h, dt_len); /* ends exactly at dt_start */
  /* zlib's CRC-32 (what the reader checks), by libdeflate: carry-less
   * multiplication where the CPU has it, about 20 times fewer instructions
   * per byte than zlib's table-driven crc32. */
  uint32_t crc = libdeflate_crc32(0, record, record_len);
  for (int i = 0; i < 4; i++)
    *end++ = (uint8_t)(crc >> (8 * i));
  ip_write_frame(frame, (size_t)(end - frame));
  atomic_fetch_add(&ip_st.events, written);
  atomic_fetch_add(&ip_st.batches, 1);
}

void ip_encode_and_write(struct ip_thread *t, const struct ip_event *ev, size_t n, int in_signal) {
  size_t first = 0;
  while (first < n && ev[first].arg == 0)
    first++;
  if (first < n) {
    struct ip_kev_list kl = {t->kev, t->kev_n, t->kev_lost};
    ip_encode_batch(t->scratch, t->scratch_len, t->tid, t->seq++, ev, n, &kl, in_signal);
  }
}
