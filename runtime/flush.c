/* flush.c - encodes a run of in-memory events as one EventBatch frame and
 * appends it to the trace with a single write().  No allocation: the arrays
 * and the frame are built in the thread's preallocated scratch area, so this
 * also runs inside a fatal-signal handler.  Descriptor pointers and indirect
 * targets become gids here (registry.c), never in a probe. */
#include <string.h>

#include "rt.h"
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
    return ip_gid_of_addr((uintptr_t)(arg >> 3), in_signal) << 3 |
           INCLPROF__EVENT_KIND__EV_CALL;
  case IP_K_RET_IND:
    return ip_gid_of_addr((uintptr_t)(arg >> 3), in_signal) << 3 | INCLPROF__EVENT_KIND__EV_RET;
  case IP_K_SAMPLE:
    return (uint32_t)((arg >> 3) & 1) << 3 | INCLPROF__EVENT_KIND__EV_SAMPLE;
  default: /* IP_K_CONTROL: the file's code is stored above the private kind */
    return (uint32_t)(arg >> 3);
  }
}

void ip_encode_and_write(struct ip_thread *t, const struct ip_event *ev, size_t n,
                         int in_signal) {
  uint64_t *dt = (uint64_t *)(void *)t->scratch;
  uint32_t *code = (uint32_t *)(void *)(dt + n);
  uint8_t *out = (uint8_t *)(code + n);
  size_t room = t->scratch_len - (size_t)(out - t->scratch);
  uint64_t base = ev[0].tick & ~IP_T_BIT, prev = base;
  /* Consecutive events mostly name a few functions: remember recent codes. */
  enum { CACHE = 64 };
  uint64_t cache_arg[CACHE];
  uint32_t cache_code[CACHE];
  memset(cache_arg, 0, sizeof cache_arg);
  for (size_t i = 0; i < n; i++) {
    uint64_t tick = ev[i].tick & ~IP_T_BIT;
    /* An event written from a signal handler that interrupted a probe
     * between its reservation and its clock read is older than its slot's
     * predecessor: it happened at the same instant as far as we can tell. */
    if (tick < prev)
      tick = prev;
    dt[i] = (tick - prev) << 1 | ev[i].tick >> 63;
    prev = tick;
    uint64_t arg = ev[i].arg;
    size_t h = (size_t)((arg >> 3) ^ (arg >> 9)) % CACHE;
    if (cache_arg[h] != arg) {
      cache_arg[h] = arg;
      cache_code[h] = code_of(arg, in_signal);
    }
    code[i] = cache_code[h];
  }
  Inclprof__EventBatch b = INCLPROF__EVENT_BATCH__INIT;
  b.tid = t->tid;
  b.seq = t->seq++;
  b.base_tick = base;
  b.n_dt = b.n_code = n;
  b.dt = dt;
  b.code = code;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_EVENTS;
  rec.events = &b;
  /* Bound without a second sizing pass: a varint dt is at most 10 bytes, a
   * code 5, plus field tags, the header fields and the frame. */
  if (n * 15 + 128 > room) { /* cannot happen with the scratch sizing in thread.c */
    atomic_fetch_add(&ip_st.dropped, n);
    return;
  }
  ip_write_frame(out, ip_frame_encode(&rec, out));
  atomic_fetch_add(&ip_st.events, n);
  atomic_fetch_add(&ip_st.batches, 1);
}
