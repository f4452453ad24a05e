/* test_trace_stack_rules.c - the stack rules (include/inclprof/stack_rules.h)
 * as their two users apply them to the same events: the runtime's ring
 * policy (runtime/sink/trace_ring.c), which follows every batch written and
 * writes each thread's state where a segment begins (ThreadState), and the
 * converter's replay (convert/model/replay.c).  After every batch the ring's
 * ThreadState must equal the replay's open frames (functions, call-site and
 * merged flags), paused, call_open and expect_ret, and the next batch
 * number; and a replay resumed from that ThreadState must hold the same
 * frames as the one that read every event.  Worked cases (nesting, merged
 * call sites, calls into uninstrumented code, unwinding exits, recursion,
 * pauses, unmatched exits, lost batches, longjmp landings) and long random
 * event streams. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "frame_read.h"
#include "model/loader.h"
#include "trace_frame.h"

/* The ring policy's entry points (runtime/sink/sink.h, whose own ip_thread is not
 * the converter's). */
void ip_ring_start(uint64_t max_size);
void ip_ring_seen(const uint8_t *frames, size_t len);
int ip_ring_rotate(int fd, const char *path, uint64_t bytes_now, uint64_t *start_bytes);

enum { TID = 7, RESUMED_TID = 8, N_GID = 6 };

#define ENTER(g) ((g) << 3 | INCLPROF__EVENT_KIND__EV_ENTER)
#define EXIT(g)  ((g) << 3 | INCLPROF__EVENT_KIND__EV_EXIT)
#define CALL(g)  ((g) << 3 | INCLPROF__EVENT_KIND__EV_CALL)
#define RET(g)   ((g) << 3 | INCLPROF__EVENT_KIND__EV_RET)
#define SAMPLE   ((uint32_t)INCLPROF__EVENT_KIND__EV_SAMPLE)
#define PAUSE    ((uint32_t)INCLPROF__EVENT_KIND__EV_PAUSE)
#define RESUME   ((uint32_t)INCLPROF__EVENT_KIND__EV_RESUME)
#define MARK(m)  ((m) << 3 | INCLPROF__EVENT_KIND__EV_MARK)
#define LAND(g)  (((g) + 1) << 3 | INCLPROF__EVENT_KIND__EV_RESUME) /* a longjmp's landing in g */

/* Both users, fed the same batches. */
typedef struct pair {
  char dir[64], path[128];
  int fd;
  ip_session s;
  ip_tables tabs;
  ip_file f;
  uint32_t func_of_gid[N_GID + 1];
  uint64_t tick;
} pair;

static void pair_begin(pair *p) {
  memset(p, 0, sizeof *p);
  snprintf(p->dir, sizeof p->dir, "/tmp/ip_stack_rules_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(p->dir));
  snprintf(p->path, sizeof p->path, "%s/1.ipb", p->dir);
  p->fd = open(p->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert_int_ge(p->fd, 0);
  ip_ring_start(UINT64_MAX);
  p->f.s = &p->s;
  p->f.tabs = &p->tabs;
  p->f.ns_per_tick = 1;
  p->f.ns_per_tick_fx = 1ull << 32;
  p->f.proc = ip_tables_process(&p->s, &p->tabs);
  uint32_t mod = ip_tables_module(&p->s, &p->tabs, IP_UNKNOWN_MODULE);
  for (uint32_t g = 1; g <= N_GID; g++) { /* session functions in another order than gids */
    char name[16];
    snprintf(name, sizeof name, "f%u", N_GID + 1 - g);
    ip_func proto = {.name = name, .pretty = name, .file = "", .module = mod, .id = g};
    p->func_of_gid[g] = ip_tables_func(&p->s, &p->tabs, &proto);
    ck_assert_int_eq(ip_file_define_func(&p->f, g, p->func_of_gid[g]), 0);
  }
}

static void pair_end(pair *p) {
  for (size_t i = 0; i < p->f.n_states; i++) {
    if (!p->f.states[i]->finished)
      ip_replay_finish(&p->f, p->f.states[i]);
    free(p->f.states[i]);
  }
  free(p->f.states);
  free(p->f.gid_func);
  ip_u64map_free(&p->f.tid_state);
  ip_session_free(&p->s);
  ip_tables_free(&p->tabs);
  close(p->fd);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", p->dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* One batch of codes, numbered seq: to the ring as the frame the runtime
 * writes, to the replay as the decoded batch. */
static void pair_batch(pair *p, uint64_t seq, const uint32_t *codes, size_t n) {
  uint64_t *dt = calloc(n ? n : 1, sizeof *dt);
  ck_assert_ptr_nonnull(dt);
  for (size_t i = 0; i < n; i++)
    dt[i] = 10 << 1;
  Inclprof__EventBatch b = INCLPROF__EVENT_BATCH__INIT;
  b.tid = TID;
  b.seq = seq;
  b.base_tick = p->tick;
  b.n_dt = b.n_code = n;
  b.dt = dt;
  b.code = (uint32_t *)codes;
  p->tick += 10 * n;
  Inclprof__Record rec = INCLPROF__RECORD__INIT;
  rec.body_case = INCLPROF__RECORD__BODY_EVENTS;
  rec.events = &b;
  uint8_t *frame = malloc(ip_frame_max_size(&rec));
  ip_ring_seen(frame, ip_frame_encode(&rec, frame));
  free(frame);
  ip_replay_batch(&p->f, ip_replay_thread(&p->f, TID), &b);
  free(dt);
}

/* The ring's ThreadState of TID where a new segment begins now (freed by
 * the caller with inclprof__record__free_unpacked). */
static Inclprof__Record *ring_state(const pair *p) {
  uint64_t start;
  ck_assert_int_eq(ip_ring_rotate(p->fd, p->path, 0, &start), 0);
  FILE *in = fopen(p->path, "rb");
  ck_assert_ptr_nonnull(in);
  uint8_t *buf = malloc(start);
  ck_assert_ptr_nonnull(buf);
  ck_assert_uint_eq(fread(buf, 1, start, in), start);
  fclose(in);
  Inclprof__Record *found = NULL;
  ip_frame_view f;
  for (size_t at = IP_TRACE_PREAMBLE_LEN; at < start && !found; at += f.size) {
    ck_assert_int_eq(ip_frame_read(buf + at, start - at, &f), IP_FRAME_OK);
    Inclprof__Record *r = inclprof__record__unpack(NULL, f.record_len, f.record);
    ck_assert_ptr_nonnull(r);
    if (r->body_case == INCLPROF__RECORD__BODY_THREAD_STATE && r->thread_state->tid == TID)
      found = r;
    else
      inclprof__record__free_unpacked(r, NULL);
  }
  free(buf);
  ck_assert_msg(found != NULL, "the new segment has no ThreadState for the thread");
  return found;
}

/* The open frames of a replayed thread as ThreadState codes over gids. */
static size_t replay_codes(const pair *p, const ip_tstate *ts, uint32_t *codes) {
  size_t n = 0;
  for (size_t i = 0; i < ts->stk.depth; i++) {
    const ip_frame *fr = (const ip_frame *)ts->stk.frames + i;
    uint32_t gid = 0;
    for (uint32_t g = 1; g <= N_GID; g++)
      if (p->func_of_gid[g] == fr->open.key)
        gid = g;
    ck_assert_uint_ne(gid, 0);
    codes[n++] = fr->open.from_call ? CALL(gid) : ENTER(gid);
    if (fr->open.merged)
      codes[n++] = ENTER(gid);
  }
  return n;
}

static uint32_t gid_of(const pair *p, uint32_t key) {
  for (uint32_t g = 1; g <= N_GID; g++)
    if (p->func_of_gid[g] == key)
      return g;
  return 0;
}

static void assert_same_frames(const ip_tstate *a, const ip_tstate *b) {
  ck_assert_uint_eq(a->stk.depth, b->stk.depth);
  for (size_t i = 0; i < a->stk.depth; i++) {
    const ip_open_frame *x = &((const ip_frame *)a->stk.frames)[i].open;
    const ip_open_frame *y = &((const ip_frame *)b->stk.frames)[i].open;
    ck_assert_uint_eq(x->key, y->key);
    ck_assert_uint_eq(x->from_call, y->from_call);
    ck_assert_uint_eq(x->merged, y->merged);
  }
  ck_assert_uint_eq(a->stk.paused, b->stk.paused);
  ck_assert_uint_eq(a->stk.call_open, b->stk.call_open);
  ck_assert_uint_eq(a->stk.expect_ret, b->stk.expect_ret);
  ck_assert_uint_eq(a->next_seq, b->next_seq);
}

/* The ring's state equals the replay's; a replay resumed from it too. */
static void assert_agree(pair *p) {
  Inclprof__Record *r = ring_state(p);
  const Inclprof__ThreadState *st = r->thread_state;
  ip_tstate *ts = ip_replay_thread(&p->f, TID);
  uint32_t codes[512] = {0};
  size_t n = replay_codes(p, ts, codes);
  ck_assert_uint_eq(st->n_open, n);
  for (size_t i = 0; i < n; i++)
    ck_assert_uint_eq(st->open[i], codes[i]);
  ck_assert_uint_eq(st->paused, ts->stk.paused);
  ck_assert_uint_eq(st->call_open, ts->stk.call_open);
  ck_assert_uint_eq(st->expect_ret,
                    ts->stk.expect_ret == IP_STACK_NO_KEY ? 0 : gid_of(p, ts->stk.expect_ret));
  ck_assert_uint_eq(st->next_seq, ts->next_seq);

  ip_tstate *resumed = ip_replay_thread(&p->f, RESUMED_TID);
  ip_replay_resume(&p->f, resumed, st);
  assert_same_frames(ts, resumed);
  ip_replay_finish(&p->f, resumed); /* the next check resumes anew */
  inclprof__record__free_unpacked(r, NULL);
}

/* Feeds the batches (separated by 0 in codes; seq skips where skip[i]) and
 * checks both users agree after each. */
static void run_case(const uint32_t *codes, size_t n, const int *skip) {
  pair p;
  pair_begin(&p);
  uint64_t seq = 0;
  size_t start = 0, batch = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && codes[i] != UINT32_MAX)
      continue;
    if (skip && skip[batch])
      seq += skip[batch];
    pair_batch(&p, seq++, codes + start, i - start);
    assert_agree(&p);
    start = i + 1;
    batch++;
  }
  pair_end(&p);
}

#define END UINT32_MAX /* ends a batch */
#define CASE(name, skip, ...)                                                                      \
  START_TEST(name) {                                                                               \
    static const uint32_t codes[] = {__VA_ARGS__};                                                 \
    run_case(codes, sizeof codes / sizeof *codes, skip);                                           \
  }                                                                                                \
  END_TEST

/* Nesting, and exits closing exactly their frame. */
CASE(nested_enter_exit, NULL, ENTER(1), ENTER(2), END, ENTER(3), EXIT(3), ENTER(4), END, EXIT(4),
     ENTER(5))

/* CALL f + ENTER f: one merged frame; its EXIT f makes the next RET f close
 * nothing (expect_ret), also when the RET comes in the next batch. */
CASE(merged_call_site, NULL, ENTER(1), CALL(2), END, ENTER(2), END, ENTER(3), EXIT(3), END, EXIT(2),
     END, RET(2), END, CALL(2), ENTER(2), EXIT(2), RET(2), EXIT(1))

/* A call into uninstrumented code: the call-site frame is open, waiting
 * for an ENTER that does not come (call_open across the batch's end). */
CASE(uninstrumented_callee, NULL, ENTER(1), CALL(6), END, SAMPLE, MARK(2), END, RET(6), CALL(5),
     END, ENTER(4), END, EXIT(4), RET(5))

/* An exit that skips frames (longjmp, unwinding through a call site). */
CASE(unwinding_exit, NULL, ENTER(1), ENTER(2), CALL(6), ENTER(3), END, EXIT(2), END, ENTER(2),
     CALL(5), ENTER(5), ENTER(4), END, EXIT(1))

/* Recursion: the nearest frame of the function closes. */
CASE(recursion, NULL, ENTER(1), ENTER(2), ENTER(1), ENTER(2), END, EXIT(1), END, EXIT(2), EXIT(2),
     ENTER(1))

/* Pauses: across batches, with events between. */
CASE(pauses, NULL, ENTER(1), PAUSE, END, SAMPLE, ENTER(2), END, RESUME, EXIT(2), PAUSE, END, RESUME)

/* Exits and returns of functions that are not open are ignored. */
CASE(unmatched_exits, NULL, EXIT(3), RET(4), END, ENTER(1), EXIT(2), RET(2), END, CALL(3), EXIT(3),
     RET(6))

/* Lost batches (a gap in seq) change no frames; the next seq follows. */
static const int lost[] = {0, 3, 0, 1};
CASE(lost_batches, lost, ENTER(1), CALL(2), END, ENTER(2), END, EXIT(2), END, ENTER(3))

/* Landings: one closes the frames above the nearest frame of its function
 * (a call-site frame and a merged one among them, across batches), one in
 * the top frame's function and one of a function not open change nothing,
 * one in a paused thread leaves it paused. */
CASE(landings, NULL, ENTER(1), ENTER(2), ENTER(3), CALL(6), END, LAND(2), ENTER(4), CALL(5),
     ENTER(5), END, CALL(6), LAND(1), LAND(1), END, LAND(3), ENTER(2), ENTER(1), ENTER(2), END,
     LAND(1), PAUSE, LAND(2), END, ENTER(3), CALL(3))

/* The rule itself: what a landing closes and what it returns. */
START_TEST(landing_rule) {
  ip_open_frame frames[8];
  ip_stack s;
  ip_stack_init(&s, frames, sizeof *frames, 8);
  static const uint32_t keys[] = {10, 20, 10, 30, 40};
  for (size_t i = 0; i < 5; i++)
    ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_ENTER, keys[i]), IP_STACK_PUSHED);
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_CALL, 50), IP_STACK_PUSHED);
  ck_assert_uint_eq(s.call_open, 1);
  /* the nearest frame of 10 (depth 3) stays open, the three above close */
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_RESUME, 10), IP_STACK_LANDED);
  ck_assert_uint_eq(s.depth, 3);
  ck_assert_uint_eq(ip_stack_at(&s, 2)->key, 10);
  ck_assert_uint_eq(ip_stack_at(&s, 3)->key, 30); /* readable until the next push */
  ck_assert_uint_eq(s.call_open, 0);
  /* the first return of setjmp: already there */
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_RESUME, 10), IP_STACK_SAME);
  ck_assert_uint_eq(s.depth, 3);
  /* no open frame of the function: nothing */
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_RESUME, 99), IP_STACK_SAME);
  ck_assert_uint_eq(s.depth, 3);
  /* an inclprof_start() RESUME names none: it un-pauses, closes nothing */
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_PAUSE, 0), IP_STACK_SAME);
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_RESUME, 20), IP_STACK_LANDED);
  ck_assert_uint_eq(s.paused, 1);
  ck_assert_uint_eq(s.depth, 2);
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_RESUME, IP_STACK_NO_KEY),
                   IP_STACK_SAME);
  ck_assert_uint_eq(s.paused, 0);
  ck_assert_uint_eq(s.depth, 2);
  /* the codes' keys: gid + 1 for a landing, none for a plain RESUME */
  ck_assert_uint_eq(ip_stack_code_key(LAND(0)), 0);
  ck_assert_uint_eq(ip_stack_code_key(LAND(5)), 5);
  ck_assert_uint_eq(ip_stack_code_key(RESUME), IP_STACK_NO_KEY);
  ck_assert_uint_eq(ip_stack_code_key(EXIT(5)), 5);
}
END_TEST

/* A thread whose events begin inside frames they do not show (a fork
 * child's forking thread): a landing in a function with no open frame
 * lands in one of those, below every open frame, and closes them all; a
 * landing in an open function closes as anywhere. */
START_TEST(landing_began_inside) {
  ip_open_frame frames[8];
  ip_stack s;
  ip_stack_init(&s, frames, sizeof *frames, 8);
  ck_assert_uint_eq(s.began_inside, 0);
  s.began_inside = 1;
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_RESUME, 7), IP_STACK_SAME);
  static const uint32_t keys[] = {10, 20, 30};
  for (size_t i = 0; i < 3; i++)
    ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_ENTER, keys[i]), IP_STACK_PUSHED);
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_CALL, 40), IP_STACK_PUSHED);
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_RESUME, 20), IP_STACK_LANDED);
  ck_assert_uint_eq(s.depth, 2);
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_RESUME, 99), IP_STACK_LANDED);
  ck_assert_uint_eq(s.depth, 0);
  ck_assert_uint_eq(ip_stack_at(&s, 1)->key, 20); /* readable until the next push */
  ck_assert_uint_eq(s.call_open, 0);
  /* then the parent's frame it landed in returns: nothing open */
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_EXIT, 99), IP_STACK_UNMATCHED);
  /* without the flag, the same landing closes nothing */
  s.began_inside = 0;
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_ENTER, 10), IP_STACK_PUSHED);
  ck_assert_int_eq(ip_stack_event(&s, INCLPROF__EVENT_KIND__EV_RESUME, 99), IP_STACK_SAME);
  ck_assert_uint_eq(s.depth, 1);
}
END_TEST

/* Random event streams over few functions, so that nearly every rule meets
 * every other: the same states after every batch.  One state has no
 * ThreadState of its own - a CALL f frame left waiting below an ENTER f
 * that did not join it (CALL f, ENTER g, EXIT g, ENTER f) is written as the
 * merged pair - so the streams, shaped by a model stack, leave it out. */
START_TEST(random_streams) {
  static const uint32_t kinds[] = {INCLPROF__EVENT_KIND__EV_ENTER,  INCLPROF__EVENT_KIND__EV_ENTER,
                                   INCLPROF__EVENT_KIND__EV_EXIT,   INCLPROF__EVENT_KIND__EV_EXIT,
                                   INCLPROF__EVENT_KIND__EV_CALL,   INCLPROF__EVENT_KIND__EV_RET,
                                   INCLPROF__EVENT_KIND__EV_PAUSE,  INCLPROF__EVENT_KIND__EV_RESUME,
                                   INCLPROF__EVENT_KIND__EV_SAMPLE, INCLPROF__EVENT_KIND__EV_MARK};
  static ip_open_frame model_frames[2400];
  ip_stack model;
  ip_stack_init(&model, model_frames, sizeof *model_frames, 2400);
  uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(_i + 1);
  pair p;
  pair_begin(&p);
  uint64_t seq = 0;
  for (int batch = 0; batch < 60; batch++) {
    uint32_t codes[40] = {0};
    size_t n = 0;
    while (n < (size_t)(1 + batch % 37)) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      uint32_t kind = kinds[x % (sizeof kinds / sizeof *kinds)];
      uint32_t gid = 1 + (uint32_t)(x >> 32) % N_GID;
      const ip_open_frame *top = model.depth ? ip_stack_at(&model, model.depth - 1) : NULL;
      if (kind == INCLPROF__EVENT_KIND__EV_ENTER && model.call_open && (x >> 40) % 2)
        gid = top->key; /* the callee of the call site */
      else if (kind == INCLPROF__EVENT_KIND__EV_ENTER && !model.call_open && top &&
               top->from_call && !top->merged && top->key == gid)
        gid = gid % N_GID + 1;
      int land = kind == INCLPROF__EVENT_KIND__EV_RESUME && (x >> 44) % 2;
      (void)ip_stack_event(&model, kind,
                           kind != INCLPROF__EVENT_KIND__EV_RESUME ? gid
                           : land                                  ? gid
                                                                   : IP_STACK_NO_KEY);
      codes[n++] = kind != INCLPROF__EVENT_KIND__EV_RESUME ? gid << 3 | kind
                   : land                                  ? LAND(gid)
                                                           : RESUME;
    }
    seq += (x >> 50) % 8 == 0; /* now and then a lost batch */
    pair_batch(&p, seq++, codes, n);
    assert_agree(&p);
  }
  pair_end(&p);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("trace_stack_rules");
  TCase *tc = tcase_create("ring_and_replay_agree");
  tcase_add_test(tc, nested_enter_exit);
  tcase_add_test(tc, merged_call_site);
  tcase_add_test(tc, uninstrumented_callee);
  tcase_add_test(tc, unwinding_exit);
  tcase_add_test(tc, recursion);
  tcase_add_test(tc, pauses);
  tcase_add_test(tc, unmatched_exits);
  tcase_add_test(tc, lost_batches);
  tcase_add_test(tc, landings);
  tcase_add_test(tc, landing_rule);
  tcase_add_test(tc, landing_began_inside);
  tcase_add_loop_test(tc, random_streams, 0, 8);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ip_check_run(suite()); }
