/* flush.c - encodes a run of in-memory events as one EventBatch frame and
 * appends it to the trace with a single write().  No allocation: the arrays
 * and the frame are built in the thread's preallocated scratch area, so this
 * also runs inside a fatal-signal handler.  Descriptor pointers and indirect
 * targets become gids here (registry.c), never in a probe. */
#include <string.h>

#include "produce/produce.h"
#include "event_batch_wire.h"
#include "trace_frame.h"

/* The file's code of an event at tick; *fixed is cleared when the answer
 * holds for this tick only (see ip_gid_of_desc). */
static uint32_t code_of(uint64_t arg, uint64_t tick, int in_signal, int *fixed) {
  unsigned kind = (unsigned)(arg & 7);
  switch (kind) {
  case IP_K_ENTER:
  case IP_K_EXIT:
  case IP_K_CALL:
  case IP_K_RET:
    return ip_gid_of_desc((const struct inclprof_fn *)(uintptr_t)(arg & ~7ull), tick, in_signal,
                          fixed)
               << 3 |
           kind;
  case IP_K_CALL_IND:
    return ip_gid_of_addr((uintptr_t)(arg >> 3), tick, in_signal, fixed) << 3 |
           INCLPROF__EVENT_KIND__EV_CALL;
  case IP_K_RET_IND:
    return ip_gid_of_addr((uintptr_t)(arg >> 3), tick, in_signal, fixed) << 3 |
           INCLPROF__EVENT_KIND__EV_RET;
  case IP_K_SAMPLE:
    return (uint32_t)((arg >> 3) & 1) << 3 | INCLPROF__EVENT_KIND__EV_SAMPLE;
  default: /* IP_K_CONTROL: the file's code is stored above the private kind; a
              landing's gid + 1 above EV_RESUME */
    if (ip_landing_desc(arg))
      return (ip_gid_of_desc(ip_landing_desc(arg), tick, in_signal, fixed) + 1) << 3 |
             INCLPROF__EVENT_KIND__EV_RESUME;
    return (uint32_t)(arg >> 3);
  }
}

/* Recent answers of code_of, keyed by arg without bit 0 (kind pairs
 * ENTER/EXIT, CALL/RET, CALL_IND/RET_IND share an entry): an event's code
 * is its arg plus the entry's off (modulo 2^32), as the two kinds of a pair
 * differ by one both in arg and in code.  Samples and control events (key
 * bits 1 and 2 set) are never entered.  An empty entry's key is all ones,
 * which no key is (bit 0 clear). */
enum { CODE_CACHE = 256 };
#define CODE_SLOT(key) ((size_t)(((key)*0x9e3779b97f4a7c15ull) >> 56)) /* the top 8 bits */
_Static_assert(CODE_CACHE == 256, "CODE_SLOT gives 8 bits");
struct code_cache {
  uint64_t key[CODE_CACHE];
  uint32_t off[CODE_CACHE]; /* code - arg, modulo 2^32 (codes are 32-bit) */
};

#define TAG(field, wire) ((uint8_t)IP_WIRE_KEY(field, wire))
#define HEADER_ROOM      64u /* frame length + Record tag/length + the batch's scalar fields */

/* Appends the packed field `tag` at p: per record of kind in kl, its futex
 * word (futex set) or its arg.  Returns the new end. */
static uint8_t *put_kernel_args(const struct ip_kev_list *kl, uint32_t kind, unsigned tag,
                                int futex, uint8_t *p) {
  size_t len = 0;
  for (size_t i = 0; i < kl->n; i++)
    if (kl->kev[i].kind == kind)
      len += ip_varint_len(futex ? kl->kev[i].futex : kl->kev[i].arg);
  p = ip_put_varint(p, TAG(tag, IP_WIRE_LEN));
  p = ip_put_varint(p, len);
  for (size_t i = 0; i < kl->n; i++)
    if (kl->kev[i].kind == kind)
      p = ip_put_varint(p, futex ? kl->kev[i].futex : kl->kev[i].arg);
  return p;
}

/* Appends a batch's kernel-event records (kevents mode) at p: kernel_dt,
 * kernel_base_tick, kernel_lost, the woken threads of its KEV_WAKE records
 * (kernel_wakee), the words and operations of its KEV_FUTEX_WAIT records
 * (kernel_futex, kernel_futex_op).  Returns the new end. */
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
  p = ip_put_varint(p, base);
  if (kl->n_wake)
    p = put_kernel_args(kl, INCLPROF__KERNEL_EVENT_KIND__KEV_WAKE, IP_TAG_BATCH_KERNEL_WAKEE, 0, p);
  if (kl->n_futex) {
    p = put_kernel_args(kl, INCLPROF__KERNEL_EVENT_KIND__KEV_FUTEX_WAIT, IP_TAG_BATCH_KERNEL_FUTEX,
                        1, p);
    p = put_kernel_args(kl, INCLPROF__KERNEL_EVENT_KIND__KEV_FUTEX_WAIT,
                        IP_TAG_BATCH_KERNEL_FUTEX_OP, 0, p);
  }
  return p;
}

/* Writes v as a protobuf varint at p; returns the byte after it.  One or
 * two bytes (nearly every dt and code) without a loop. */
static inline uint8_t *put_varint_short(uint8_t *p, uint64_t v) {
  if (IP_LIKELY(v < 0x80)) {
    *p = (uint8_t)v;
    return p + 1;
  }
  if (v < 0x4000) {
    p[0] = (uint8_t)(v | 0x80);
    p[1] = (uint8_t)(v >> 7);
    return p + 2;
  }
  return ip_put_varint(p, v);
}

/* The state of encoding one batch's events outside its loop. */
struct encoder {
  size_t skipped; /* empty slots, coroutine frame and pointer call slots: no event in the file */
  int in_signal;
  struct code_cache cache;
  uint8_t *smp, *smp_end; /* the samples' addresses as varints, and the end of their room */
  /* The coroutine frames as (index delta, frame) pairs, the end of their
   * room, and the index of the previous pair's event. */
  uint8_t *frm, *frm_end;
  uint64_t frame_prev;
  /* The pointer calls as index deltas, the end of their room, and the
   * index of the previous one's event. */
  uint8_t *ptr, *ptr_end;
  uint64_t ptr_prev;
};

/* A coroutine frame's slot at e (of the batch ev): its frame belongs to the
 * ENTER event that follows it (samples, which a signal handler may have put
 * between them, aside), whose index in the batch is known now: the slots
 * before it less the empty and frame slots.  With any other event next, or
 * none, the frame is dropped; so is a pair the room cannot take. */
static __attribute__((noinline)) void frame_slot(struct encoder *en, const struct ip_event *ev,
                                                 const struct ip_event *e,
                                                 const struct ip_event *stop) {
  const struct ip_event *next = e + 1;
  while (next < stop && (next->arg & 7) == IP_K_SAMPLE)
    next++;
  en->skipped++;
  if (next >= stop || !next->arg || (next->arg & 7) != IP_K_ENTER || en->frm_end - en->frm < 20)
    return;
  uint64_t index = (uint64_t)(next - ev) - en->skipped;
  en->frm = ip_put_varint(en->frm, index - en->frame_prev);
  en->frm = ip_put_varint(en->frm, e->arg >> 6);
  en->frame_prev = index;
}

/* A pointer call's slot at e (of the batch ev): its hooks ran in the
 * interval that ends at the next event written, whose index in the batch is
 * the slots before it less the skipped ones (one past the batch's last
 * event when none follows: the next batch's first).  Dropped, and counted
 * so, when the room cannot take it. */
static __attribute__((noinline)) void ptr_call_slot(struct encoder *en, const struct ip_event *ev,
                                                    const struct ip_event *e) {
  uint64_t index = (uint64_t)(e - ev) - en->skipped;
  en->skipped++;
  if (en->ptr_end - en->ptr < 10) {
    atomic_fetch_add(&ip_st.dropped, 1);
    return;
  }
  en->ptr = ip_put_varint(en->ptr, index - en->ptr_prev);
  en->ptr_prev = index;
}

/* Appends a sample's interrupted address (0 in the runtime's own code, or
 * when the room is short: one byte then). */
static void put_sample_addr(struct encoder *en, uint64_t arg) {
  uint64_t pc = (arg >> 3) & 1 ? 0 : arg >> 4;
  if (en->smp_end - en->smp < 10)
    pc = 0;
  if (en->smp < en->smp_end)
    en->smp = ip_put_varint(en->smp, pc);
}

/* The code of an event that is not in the cache (entering it unless it
 * depends on the event's tick: a pointer of an unloaded unit), or EMPTY for
 * an empty slot: a slot reserved by a probe that a fatal signal interrupted
 * before it filled the slot (only a fatal-signal flush can see one; arg 0
 * would be the entry of a NULL descriptor). */
#define EMPTY (~(uint64_t)0)
static __attribute__((noinline)) uint64_t next_code(struct encoder *en, uint64_t arg,
                                                    uint64_t tick) {
  if (arg == 0) {
    en->skipped++;
    return EMPTY;
  }
  if ((arg & 7) == IP_K_SAMPLE)
    put_sample_addr(en, arg);
  int fixed = 1;
  uint64_t code = code_of(arg, tick & ~IP_T_BIT, en->in_signal, &fixed);
  if ((arg & 7) < IP_K_SAMPLE && fixed) {
    size_t h = CODE_SLOT(arg & ~1ull);
    en->cache.key[h] = arg & ~1ull;
    en->cache.off[h] = (uint32_t)(code - arg);
  }
  return code;
}

/* Encodes ev[0..n) as dt bytes at *dp and code bytes at *cp, clearing each
 * event's arg; prev2 is the batch's base tick doubled.  Ticks are kept
 * doubled, so that an event's tick rotated left by one is its doubled tick
 * with its T bit (bit 63) in bit 0: less prev2, that is its dt.  No branch
 * depends on which function an event names while its entry is in the
 * cache: the loop then runs straight through for dt and code below 128. */
static __attribute__((noinline)) void encode_events(struct encoder *en, struct ip_event *ev,
                                                    size_t n, uint64_t prev2, uint8_t **dpp,
                                                    uint8_t **cpp) {
  uint8_t *dp = *dpp, *cp = *cpp;
  for (struct ip_event *e = ev, *stop = ev + n; e < stop; e++) {
    uint64_t arg = e->arg, code;
    size_t h = CODE_SLOT(arg & ~1ull);
    if (IP_LIKELY(en->cache.key[h] == (arg & ~1ull))) {
      code = (uint32_t)arg + en->cache.off[h];
    } else if (IP_UNLIKELY(ip_is_coro_frame(arg))) {
      frame_slot(en, ev, e, stop);
      e->arg = 0;
      continue;
    } else if (IP_UNLIKELY(ip_is_ptr_call(arg))) {
      ptr_call_slot(en, ev, e);
      e->arg = 0;
      continue;
    } else {
      code = next_code(en, arg, e->tick);
      if (IP_UNLIKELY(code == EMPTY))
        continue;
    }
    e->arg = 0;
    uint64_t r = e->tick << 1 | e->tick >> 63, dt = r - prev2;
    if (IP_LIKELY(dt < 0x80)) {
      *dp++ = (uint8_t)dt;
    } else {
      /* An event written from a signal handler that interrupted a probe
       * between its reservation and its clock read is older than its
       * slot's predecessor (dt wrapped around): it happened at the same
       * instant as far as we can tell. */
      if ((r & ~1ull) < prev2)
        r = prev2 | (r & 1);
      dp = put_varint_short(dp, r - prev2);
    }
    cp = put_varint_short(cp, code);
    prev2 = r & ~1ull;
  }
  *dpp = dp;
  *cpp = cp;
}

/* Appends the length-delimited field `tag` whose bytes were written at
 * [start, end) to p, moving them down (p is at or before start); nothing
 * when the field is empty.  Returns the byte after it. */
static uint8_t *put_moved_field(uint8_t *p, uint64_t tag, const uint8_t *start,
                                const uint8_t *end) {
  size_t len = (size_t)(end - start);
  if (!len)
    return p;
  p = ip_put_varint(p, tag);
  p = ip_put_varint(p, len);
  memmove(p, start, len);
  return p + len;
}

/* Writes one EventBatch frame for ev[0..n) and clears the arg of every event
 * it took (ev is then ready for reuse: an arg of 0 is an empty slot).  The
 * batch is encoded in a single pass straight into the protobuf wire format -
 * the two packed arrays side by side in the scratch area - rather than
 * through protobuf-c, which would walk every array twice (sizing, then
 * packing): this is the flush's inner loop and its time is time the program
 * waits.  The reader decodes it with protobuf-c like every other record, and
 * the tests round-trip it. */
void ip_encode_batch(uint8_t *scratch, size_t scratch_len, uint32_t tid, uint64_t seq,
                     struct ip_event *ev, size_t n, const struct ip_kev_list *kl, int in_signal) {
  if (n * 20 + 2 * HEADER_ROOM + kl->n * 10 + kl->n_wake * 5 + kl->n_futex * 15 + 32 >
      scratch_len) { /* cannot happen with IP_SCRATCH_BYTES */
    atomic_fetch_add(&ip_st.dropped, n);
    for (size_t i = 0; i < n; i++)
      ev[i].arg = 0;
    return;
  }
  uint8_t *dt_start = scratch + HEADER_ROOM;
  uint8_t *code_start = dt_start + n * 10 + 16; /* after the worst-case dt bytes + code's tag/len */
  uint8_t *dp = dt_start, *cp = code_start;
  /* The first event: past empty slots (see next_code), frame and pointer
   * call slots, which have no tick; whether pointer calls come before it. */
  size_t first = 0;
  int ptr_calls = 0;
  for (; first < n; first++) {
    uint64_t arg = ev[first].arg;
    if (ip_is_ptr_call(arg))
      ptr_calls = 1;
    else if (arg != 0 && !ip_is_coro_frame(arg))
      break;
  }
  if (first == n && !ptr_calls) {
    for (size_t i = 0; i < n; i++)
      ev[i].arg = 0;
    return; /* nothing to write; the seq is not used */
  }
  ip_tables_close_pending(in_signal); /* the tables of the functions it may name first */
  /* A batch of pointer calls alone (a loop of them filled the buffer) has
   * no event and base tick 0: its calls belong to the next batch's first. */
  uint64_t base = first < n ? ev[first].tick & ~IP_T_BIT : 0;
  struct encoder en; /* off[] is read only where key[] was set */
  en.skipped = 0;
  en.in_signal = in_signal;
  /* The sample addresses go after the worst-case code bytes, less the room
   * of the kernel-event records and the CRC. */
  uint8_t *smp_start = code_start + n * 5;
  size_t tail_room = kl->n * 10 + kl->n_wake * 5 + kl->n_futex * 15 + 64;
  en.smp = smp_start;
  en.smp_end =
      scratch + scratch_len > smp_start + tail_room ? scratch + scratch_len - tail_room : smp_start;
  /* The coroutine frames go after the samples' worst case (a frame slot is
   * no sample): they take at most 11 bytes a pair, one pair per two slots. */
  en.frm = smp_start + n * 10 < en.smp_end ? smp_start + n * 10 : en.smp_end;
  en.frm_end = en.smp_end;
  en.smp_end = en.frm;
  /* The pointer calls take the second half of that room (a varint of at
   * most 3 bytes each, one per slot). */
  en.ptr_end = en.frm_end;
  en.ptr = en.frm + (size_t)(en.frm_end - en.frm) / 2;
  en.frm_end = en.ptr;
  const uint8_t *frm_start = en.frm, *ptr_start = en.ptr;
  en.frame_prev = en.ptr_prev = 0;
  memset(en.cache.key, 0xff, sizeof en.cache.key); /* every entry empty */
  encode_events(&en, ev, n, base << 1, &dp, &cp);
  size_t written = n - en.skipped;
  size_t dt_len = (size_t)(dp - dt_start), code_len = (size_t)(cp - code_start);
  /* Pack: dt bytes stay put; the code field (tag, length, bytes) follows them. */
  dp = ip_put_varint(dp, TAG(IP_TAG_BATCH_CODE, IP_WIRE_LEN)); /* one byte */
  dp = ip_put_varint(dp, code_len);
  memmove(dp, code_start, code_len);
  dp += code_len;
  /* Each packed field follows the one before, which ends before its bytes. */
  dp = put_moved_field(dp, TAG(IP_TAG_BATCH_SAMPLE_ADDR, IP_WIRE_LEN), smp_start, en.smp);
  dp = put_moved_field(dp, TAG(IP_TAG_BATCH_CORO_FRAME, IP_WIRE_LEN), frm_start, en.frm);
  dp = put_moved_field(dp, TAG(IP_TAG_BATCH_POINTER_CALLS, IP_WIRE_LEN), ptr_start, en.ptr);
  const uint8_t *end = put_kernel_events(kl, dp);

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
  ip_put_varint(h, dt_len);                /* ends exactly at dt_start */
  end = ip_frame_seal(record, record_len); /* the CRC right after the record */
  ip_write_frame(frame, (size_t)(end - frame));
  atomic_fetch_add(&ip_st.events, written);
  atomic_fetch_add(&ip_st.batches, 1);
}

struct encode_args {
  struct ip_rt_thread *t;
  struct ip_event *ev;
  size_t n;
  int in_signal;
};

static void encode_and_write(void *v) {
  const struct encode_args *a = v;
  struct ip_rt_thread *t = a->t;
  if (ip_st.aggregate) {
    struct ip_kev_list kl = {t->kev, t->kev_n, t->kev_lost, t->kev_n_wake, t->kev_n_futex};
    ip_tables_close_pending(a->in_signal); /* before the gids it folds, and so its profile */
    ip_agg_fold(t, a->ev, a->n, &kl, a->in_signal);
    return;
  }
  size_t first = 0;
  while (first < a->n && a->ev[first].arg == 0)
    first++;
  if (first < a->n) {
    struct ip_kev_list kl = {t->kev, t->kev_n, t->kev_lost, t->kev_n_wake, t->kev_n_futex};
    ip_encode_batch(t->scratch, t->scratch_len, t->tid, t->seq++, a->ev, a->n, &kl, a->in_signal);
  }
}

/* On the runtime's stack after the thread's scratch area (own_stack.c):
 * the caller may be a thread of the program's with a stack of 16 KB. */
void ip_encode_and_write(struct ip_rt_thread *t, struct ip_event *ev, size_t n, int in_signal) {
  struct encode_args a = {t, ev, n, in_signal};
  ip_on_stack(t->scratch ? t->scratch + t->scratch_len : NULL, IP_OWN_STACK_BYTES, encode_and_write,
              &a);
}
