/* stack_rules.h - the rules by which a thread's events open and close its
 * frames (the rules: "The values" in docs/converter.md), once for the
 * converter's replay (convert/model/replay.c), which attributes time to the
 * frames, and for the runtime's ring policy (runtime/sink/trace_ring.c), which
 * writes each thread's open frames where a segment begins.
 *
 *   ENTER f   opens a frame of f; right after CALL f (the call site's frame
 *             still waiting), joins that frame instead: one frame, merged
 *   CALL f    opens a call-site frame of f (an uninstrumented callee)
 *   EXIT f    closes the frames down to and including the nearest of f
 *             (frames skipped by longjmp or unwinding); after a merged frame,
 *             the RET f that follows closes nothing
 *   RET f     closes like EXIT f
 *   PAUSE, RESUME  the thread is paused between them; SAMPLE, MARK: nothing
 *   LANDING f (a RESUME that names f: the return of a setjmp in f) closes
 *             the frames above the nearest of f, which stays open: frames a
 *             longjmp skipped; no open frame of f: nothing, but in a thread
 *             whose events begin inside frames they do not show (a fork
 *             child's forking thread, `began_inside`), where f is one of
 *             those: every open frame
 *   an EXIT or RET of a function that is not open is ignored
 *
 * The frames live in the caller's storage: cap frames of `stride` bytes, each
 * beginning with an ip_open_frame (the caller keeps its own data after it).
 * A frame's key names its function: the converter's session function, the
 * runtime's gid.  Inline: the converter's replay runs it for every event. */
#ifndef INCLPROF_STACK_RULES_H
#define INCLPROF_STACK_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "inclprof.pb-c.h"

#define IP_STACK_NO_KEY UINT32_MAX

typedef struct ip_open_frame {
  uint32_t key;
  uint8_t from_call; /* opened by CALL */
  uint8_t merged;    /* a CALL frame joined by its callee's ENTER */
} ip_open_frame;

typedef struct ip_stack {
  void *frames; /* the caller's: cap frames of stride bytes */
  size_t stride, cap;
  size_t depth;        /* frames open */
  uint32_t expect_ret; /* the key whose next RET closes nothing, or IP_STACK_NO_KEY */
  uint8_t call_open;   /* the top frame came from CALL and awaits the ENTER */
  uint8_t paused;      /* between PAUSE and RESUME */
  /* Set by the caller: the thread's events begin inside frames they do
   * not show (a fork child's forking thread). */
  uint8_t began_inside;
} ip_stack;

/* What one event did to the frames. */
typedef enum ip_stack_change {
  IP_STACK_SAME,      /* opened and closed nothing */
  IP_STACK_PUSHED,    /* opened the frame at depth - 1 (its caller data to fill) */
  IP_STACK_JOINED,    /* merged the callee's ENTER into the top CALL frame */
  IP_STACK_POPPED,    /* closed the frames from depth up to the depth before the
                       * event; they stay readable there until the next push */
  IP_STACK_LANDED,    /* a landing closed the frames from depth up to the depth
                       * before the event, all skipped by a longjmp; readable
                       * there until the next push */
  IP_STACK_UNMATCHED, /* an EXIT or RET whose function is not open: ignored */
  IP_STACK_FULL       /* a frame to open found no room (depth == cap): not opened */
} ip_stack_change;

/* An empty stack over frames[0..cap) of stride bytes. */
static inline void ip_stack_init(ip_stack *s, void *frames, size_t stride, size_t cap) {
  s->frames = frames;
  s->stride = stride;
  s->cap = cap;
  s->depth = 0;
  s->expect_ret = IP_STACK_NO_KEY;
  s->call_open = s->paused = s->began_inside = 0;
}

/* The frame at depth i of frames of stride bytes.  The rules below take
 * the stride as a parameter so that a caller that passes a constant
 * (ip_stack_event_sized) has every frame's address computed without a
 * multiplication. */
static inline ip_open_frame *ip_stack_at_sized(const ip_stack *s, size_t i, size_t stride) {
  return (ip_open_frame *)((char *)s->frames + i * stride);
}

static inline ip_open_frame *ip_stack_at(const ip_stack *s, size_t i) {
  return ip_stack_at_sized(s, i, s->stride);
}

static inline ip_stack_change ip_stack_push(ip_stack *s, uint32_t key, int from_call,
                                            size_t stride) {
  if (s->depth == s->cap)
    return IP_STACK_FULL;
  ip_open_frame *fr = ip_stack_at_sized(s, s->depth++, stride);
  fr->key = key;
  fr->from_call = (uint8_t)from_call;
  fr->merged = 0;
  return IP_STACK_PUSHED;
}

/* Closes down to and including the nearest frame of key. */
static inline ip_stack_change ip_stack_pop_to(ip_stack *s, uint32_t key, size_t stride) {
  size_t k = s->depth;
  while (k > 0 && ip_stack_at_sized(s, k - 1, stride)->key != key)
    k--;
  if (!k)
    return IP_STACK_UNMATCHED;
  s->depth = k - 1;
  return IP_STACK_POPPED;
}

/* A landing in key: closes the frames above its nearest open frame, or,
 * with none, every frame of a thread that began inside frames it does not
 * show (key's frame is one of those, below every open one). */
static inline ip_stack_change ip_stack_land_sized(ip_stack *s, uint32_t key, size_t stride) {
  size_t k = s->depth;
  while (k > 0 && ip_stack_at_sized(s, k - 1, stride)->key != key)
    k--;
  if ((!k && !s->began_inside) || k == s->depth)
    return IP_STACK_SAME;
  s->depth = k;
  s->call_open = 0;
  s->expect_ret = IP_STACK_NO_KEY;
  return IP_STACK_LANDED;
}

static inline ip_stack_change ip_stack_land(ip_stack *s, uint32_t key) {
  return ip_stack_land_sized(s, key, s->stride);
}

/* Applies one event of kind (Inclprof__EventKind) whose function is key (any
 * value for the kinds that name none; IP_STACK_NO_KEY for a RESUME that is
 * no landing), s's frames being stride bytes each. */
static inline __attribute__((always_inline)) ip_stack_change
ip_stack_event_sized(ip_stack *s, uint32_t kind, uint32_t key, size_t stride) {
  ip_stack_change c = IP_STACK_SAME;
  switch (kind) {
  case INCLPROF__EVENT_KIND__EV_ENTER:
    if (s->call_open && ip_stack_at_sized(s, s->depth - 1, stride)->key == key) {
      ip_stack_at_sized(s, s->depth - 1, stride)->merged = 1; /* CALL(f) + ENTER(f): one frame */
      c = IP_STACK_JOINED;
    } else {
      c = ip_stack_push(s, key, 0, stride);
    }
    s->call_open = 0;
    s->expect_ret = IP_STACK_NO_KEY;
    break;
  case INCLPROF__EVENT_KIND__EV_CALL:
    c = ip_stack_push(s, key, 1, stride);
    s->call_open = c == IP_STACK_PUSHED;
    s->expect_ret = IP_STACK_NO_KEY;
    break;
  case INCLPROF__EVENT_KIND__EV_EXIT:
    c = ip_stack_pop_to(s, key, stride);
    s->call_open = 0;
    /* EXIT(f) + RET(f) of a merged frame: one close */
    s->expect_ret = c == IP_STACK_POPPED && ip_stack_at_sized(s, s->depth, stride)->merged
                        ? key
                        : IP_STACK_NO_KEY;
    break;
  case INCLPROF__EVENT_KIND__EV_RET:
    if (s->expect_ret != key)
      c = ip_stack_pop_to(s, key, stride);
    s->call_open = 0;
    s->expect_ret = IP_STACK_NO_KEY;
    break;
  case INCLPROF__EVENT_KIND__EV_PAUSE:
    s->paused = 1;
    break;
  case INCLPROF__EVENT_KIND__EV_RESUME:
    if (key == IP_STACK_NO_KEY)
      s->paused = 0;
    else
      c = ip_stack_land_sized(s, key, stride);
    break;
  default: /* SAMPLE, MARK, and kinds of a newer minor version */
    break;
  }
  return c;
}

/* ip_stack_event_sized with s's own stride. */
static inline ip_stack_change ip_stack_event(ip_stack *s, uint32_t kind, uint32_t key) {
  return ip_stack_event_sized(s, kind, key, s->stride);
}

/* The key of an event of the file by its code, the keys being gids: a
 * RESUME names its landing's function as gid + 1, or none (0). */
static inline uint32_t ip_stack_code_key(uint32_t code) {
  if ((code & 7) != INCLPROF__EVENT_KIND__EV_RESUME)
    return code >> 3;
  return code >> 3 ? (code >> 3) - 1 : IP_STACK_NO_KEY;
}

/* A thread's state where a ring segment begins (ThreadState): its open
 * frames as the event codes that open them again through ip_stack_event
 * (gid << 3 | kind: CALL or ENTER; a merged frame CALL then ENTER), written
 * into codes[0..2 * depth); returns their count.  The keys are gids. */
size_t ip_stack_open_codes(const ip_stack *s, uint32_t *codes);

/* After the open codes of a ThreadState went through ip_stack_event: the
 * rest of its state (expect_ret: IP_STACK_NO_KEY for none). */
static inline void ip_stack_resume(ip_stack *s, int paused, int call_open, uint32_t expect_ret) {
  s->paused = (uint8_t)(paused != 0);
  s->call_open = (uint8_t)(call_open && s->depth);
  s->expect_ret = expect_ret;
}

#endif
