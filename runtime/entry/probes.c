/* probes.c - the hot path: one hook set per transition mode and clock read
 * (INCLPROF_CLOCK: base/clock.h), so no probe tests either, null hooks for
 * a pause, and the start-up calibration of a
 * probe's cost.  A probe reserves a slot (pos), reads the transition counter
 * and the clock, and fills the slot: no lock, no allocation, no system call.
 * The rare cases (first probe of a thread, full buffer) go to the slow path.
 * An indirect call to an instrumented function records no event: the
 * callee's own ENTER and EXIT name it (entry_set.c); nor does one to a
 * function whose calls a filter excludes.  Its call hook leaves a slot
 * without a clock read instead (IP_PTR_CALL_TAG), so that the converter
 * takes the two hooks' calibrated cost out of the interval they ran in. */
#include "base/pmu.h"
#include "probe_x86.h"
#include "entry/entry.h"

enum { MODE_NONE, MODE_KEV, MODE_PMU };
/* One probe's clock read: bare, after an lfence, rdtscp. */
enum { CLK_BARE, CLK_FENCE, CLK_RDTSCP };

static inline __attribute__((always_inline)) uint64_t tick_by(int clk) {
  return clk == CLK_FENCE ? ip_tick() : clk == CLK_RDTSCP ? ip_tick_rdtscp() : ip_tick_unfenced();
}

_Static_assert(offsetof(struct inclprof_fn, runtime_flags) == 44 &&
                   INCLPROF_RT_CALLEE_INSTRUMENTED == 1,
               "probe_x86.h: INCLPROF_X86_RUNTIME_FLAGS and INCLPROF_X86_CALLEE_INSTRUMENTED");

/* Returns IP_T_BIT when the thread's transition counter moved. */
static inline __attribute__((always_inline)) uint64_t moved(struct ip_rt_thread *t, int mode) {
  uint64_t now;
  if (mode == MODE_NONE)
    return 0;
  if (mode == MODE_KEV)
    now = *t->tr_src;
  else
    now = ip_pmu_value((const volatile struct perf_event_mmap_page *)t->pmu_page);
  uint64_t m = (uint64_t)(now != t->tr_last) << 63;
  t->tr_last = now;
  return m;
}

static inline __attribute__((always_inline)) void fill(struct ip_rt_thread *t, struct ip_event *p,
                                                       uint64_t arg, int mode, int clk) {
  uint64_t m = moved(t, mode);
  p->tick = tick_by(clk) | m;
  __asm__ __volatile__("" ::: "memory"); /* arg last: a set arg marks a filled slot */
  p->arg = arg;
}

/* The rare path (first probe of a thread, full buffer, a child running on
 * the thread's state): the event goes into the slot the slow path gives,
 * then the buffer is flushed if it may be.  Out of line and reached by a
 * tail call, so the fast path needs no stack frame. */
static IP_RT_TEXT void record_slow(struct ip_event *p, uint64_t arg, int mode, int clk) {
  struct ip_rt_thread *t = &ip_tls;
  struct ip_event *slot = ip_slow_slot(t, p);
  if (IP_UNLIKELY(!slot))
    return;
  fill(t, slot, arg, mode, clk);
  ip_slow_flush(t);
}

/* kevents: once half the ring has come since it was last read, the probe
 * reads it (a tail call, after its event). */
static inline __attribute__((always_inline)) void record(uint64_t arg, int mode, int clk) {
  struct ip_rt_thread *t = &ip_tls;
  struct ip_event *p = ip_reserve(t);
  if (IP_UNLIKELY(p >= t->end)) {
    record_slow(p, arg, mode, clk);
    return;
  }
  fill(t, p, arg, mode, clk);
  if (mode == MODE_KEV && IP_UNLIKELY(t->tr_last >= t->kev_drain_at))
    ip_kevents_drain(t, p->tick & ~IP_T_BIT);
}

static inline __attribute__((always_inline)) void fill_untimed(struct ip_event *p, uint64_t arg) {
  p->tick = 0;
  __asm__ __volatile__("" ::: "memory"); /* arg last: a set arg marks a filled slot */
  p->arg = arg;
}

/* A coroutine frame's slot (base/base.h): no clock read and no transition
 * taken (the ENTER after it has both), and no flush after it in the slow
 * path, so that the ENTER it belongs to lands in the same batch. */
static inline __attribute__((always_inline)) void record_frame(uint64_t arg) {
  struct ip_rt_thread *t = &ip_tls;
  struct ip_event *p = ip_reserve(t);
  if (IP_UNLIKELY(p >= t->end)) {
    p = ip_slow_slot(t, p);
    if (IP_UNLIKELY(!p))
      return;
  }
  fill_untimed(p, arg);
}

/* A pointer call's slow path: a full buffer is flushed like after any
 * event, so that a loop of pointer calls with no event between them never
 * runs past the headroom (the encoder writes a batch of such slots alone,
 * and they belong to the next batch's first event). */
static IP_RT_TEXT void ptr_call_slow(struct ip_event *p) {
  struct ip_rt_thread *t = &ip_tls;
  struct ip_event *slot = ip_slow_slot(t, p);
  if (IP_UNLIKELY(!slot))
    return;
  fill_untimed(slot, IP_PTR_CALL_TAG);
  ip_slow_flush(t);
}

/* A pointer call's slot: no clock read and no transition taken (the event
 * after it has both). */
static inline __attribute__((always_inline)) void record_ptr_call(void) {
  struct ip_rt_thread *t = &ip_tls;
  struct ip_event *p = ip_reserve(t);
  if (IP_UNLIKELY(p >= t->end)) {
    ptr_call_slow(p);
    return;
  }
  fill_untimed(p, IP_PTR_CALL_TAG);
}

#define DESC(fn, k) ((uint64_t)(uintptr_t)(fn) | (k))
#define ADDR(a, k)  ((uint64_t)(uintptr_t)(a) << 3 | (k))

IP_RT_TEXT static void coroutine_frame(const void *frame) {
  record_frame((uint64_t)(uintptr_t)frame << 6 | IP_CORO_FRAME_TAG);
}

/* A hook set: the probes that begin a call (entry, call, landing) read the
 * clock by cin, those that end one (exit, return) by cout. */
#define HOOK_SET(suffix, mode, cin, cout)                                                          \
  IP_RT_TEXT static void enter_##suffix(const struct inclprof_fn *fn) {                            \
    record(DESC(fn, IP_K_ENTER), mode, cin);                                                       \
  }                                                                                                \
  IP_RT_TEXT static void exit_##suffix(const struct inclprof_fn *fn) {                             \
    record(DESC(fn, IP_K_EXIT), mode, cout);                                                       \
  }                                                                                                \
  IP_RT_TEXT static void call_##suffix(const struct inclprof_fn *fn) {                             \
    if (!(fn->runtime_flags & INCLPROF_RT_CALLEE_INSTRUMENTED))                                    \
      record(DESC(fn, IP_K_CALL), mode, cin);                                                      \
  }                                                                                                \
  IP_RT_TEXT static void ret_##suffix(const struct inclprof_fn *fn) {                              \
    if (!(fn->runtime_flags & INCLPROF_RT_CALLEE_INSTRUMENTED))                                    \
      record(DESC(fn, IP_K_RET), mode, cout);                                                      \
  }                                                                                                \
  IP_RT_TEXT static void calli_##suffix(const void *target) {                                      \
    if (!ip_entry_known((uintptr_t)target))                                                        \
      record(ADDR(target, IP_K_CALL_IND), mode, cin);                                              \
    else                                                                                           \
      record_ptr_call();                                                                           \
  }                                                                                                \
  IP_RT_TEXT static void reti_##suffix(const void *target) {                                       \
    if (!ip_entry_known((uintptr_t)target))                                                        \
      record(ADDR(target, IP_K_RET_IND), mode, cout);                                              \
  }                                                                                                \
  IP_RT_TEXT static void land_##suffix(const struct inclprof_fn *fn) {                             \
    record((uint64_t)(uintptr_t)fn << 6 | IP_LANDING_TAG, mode, cin);                              \
  }                                                                                                \
  static const struct inclprof_hooks hooks_##suffix = {                                            \
      enter_##suffix, exit_##suffix, call_##suffix,   ret_##suffix,                                \
      calli_##suffix, reti_##suffix, coroutine_frame, land_##suffix};

/* By transition mode, one for each IP_CLOCK_* */
#define HOOK_SETS(m, mode)                                                                         \
  HOOK_SET(m, mode, CLK_FENCE, CLK_FENCE)                                                          \
  HOOK_SET(m##_fast, mode, CLK_BARE, CLK_BARE)                                                     \
  HOOK_SET(m##_rdtscp, mode, CLK_RDTSCP, CLK_RDTSCP)                                               \
  HOOK_SET(m##_exits, mode, CLK_BARE, CLK_FENCE)                                                   \
  static const struct inclprof_hooks *const hooks_##m##_by_clock[IP_CLOCK_READS] = {               \
      &hooks_##m, &hooks_##m##_fast, &hooks_##m##_rdtscp, &hooks_##m##_exits};
HOOK_SETS(none, MODE_NONE)
HOOK_SETS(kev, MODE_KEV)
HOOK_SETS(pmu, MODE_PMU)

const struct inclprof_hooks *ip_hooks_for_mode(int mode) {
  int c = ip_st.clock_read;
  switch (mode) {
  case INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS:
    return hooks_kev_by_clock[c];
  case INCLPROF__TRANSITION_MODE__TRANSITIONS_PMU:
    return hooks_pmu_by_clock[c];
  default:
    return hooks_none_by_clock[c];
  }
}

/* Control events (mark, pause, resume) from inclprof.h: same path as a probe. */
IP_RT_TEXT void ip_append_private(uint64_t arg) {
  if (ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS)
    record(arg, MODE_KEV, CLK_FENCE);
  else if (ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_PMU)
    record(arg, MODE_PMU, CLK_FENCE);
  else
    record(arg, MODE_NONE, CLK_FENCE);
}

/* ---- calibration: the same probe body on a private buffer ------------- */
#define CAL_EVENTS 512
/* Rounds of 200 calls whose fastest is kept: with 6 the calibrated costs
 * are those of 20 (medians of 15 runs each on a busy 2-core VM, within
 * 0.1 ns), in 0.25 ms instead of 0.75. */
#define CAL_ROUNDS 6
static struct ip_event cal_buf[CAL_EVENTS];
static const volatile uint64_t cal_zero;
static const struct perf_event_mmap_page cal_page;

/* A calibration probe takes its site, as a hook takes its descriptor. */
struct cal_site;
typedef void (*cal_probe_fn)(const struct cal_site *);
struct cal_site {
  cal_probe_fn volatile probe;
  struct ip_rt_thread *t;
};

#define CAL_PROBE(suffix, mode, clk)                                                               \
  static __attribute__((noinline)) void cal_##suffix(const struct cal_site *s) {                   \
    struct ip_rt_thread *t = s->t;                                                                 \
    if (t->pos >= t->end)                                                                          \
      t->pos = cal_buf;                                                                            \
    struct ip_event *p = t->pos;                                                                   \
    t->pos = p + 1;                                                                                \
    uint64_t m = moved(t, mode);                                                                   \
    p->tick = tick_by(clk) | m;                                                                    \
    p->arg = (uint64_t)(uintptr_t)s;                                                               \
    if (mode == MODE_KEV && IP_UNLIKELY(t->tr_last >= t->kev_drain_at))                            \
      t->pos = cal_buf; /* never: the same test as a probe's */                                    \
  }
CAL_PROBE(none, MODE_NONE, CLK_FENCE)
CAL_PROBE(kev, MODE_KEV, CLK_FENCE)
CAL_PROBE(pmu, MODE_PMU, CLK_FENCE)
CAL_PROBE(none_fast, MODE_NONE, CLK_BARE)
CAL_PROBE(kev_fast, MODE_KEV, CLK_BARE)
CAL_PROBE(pmu_fast, MODE_PMU, CLK_BARE)
CAL_PROBE(none_rdtscp, MODE_NONE, CLK_RDTSCP)
CAL_PROBE(kev_rdtscp, MODE_KEV, CLK_RDTSCP)
CAL_PROBE(pmu_rdtscp, MODE_PMU, CLK_RDTSCP)

/* A dependent chain of multiply-adds: code that leaves the core idle. */
static inline __attribute__((always_inline)) uint64_t cal_chain(uint64_t x, int steps) {
  for (int i = 0; i < steps; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    __asm__ __volatile__("" : "+r"(x));
  }
  return x;
}

#if defined(__x86_64__) && !defined(__ILP32__)
/* A probe as the plugin builds it on x86-64 (plugin/ip_asm_probe.cc): a test
 * of the hook, a jump to a stub that calls the same trampoline with the site
 * as the descriptor. */
static struct cal_site cal_at;
static cal_probe_fn volatile cal_hook;
__asm__(".pushsection .text\n"
        ".type ip_cal_tramp1, @function\n"
        "ip_cal_tramp1:\n" INCLPROF_X86_TRAMP1_BODY ".size ip_cal_tramp1, .-ip_cal_tramp1\n"
        ".popsection");
#define CAL_PROBE_AT(s)                                                                            \
  do {                                                                                             \
    (void)(s);                                                                                     \
    __asm__ __volatile__("cmpq $0, %c0(%%rip)\n\t"                                                 \
                         "jne 2f\n"                                                                \
                         "1:\n\t"                                                                  \
                         ".pushsection .text.unlikely\n"                                           \
                         "2:\n\t"                                                                  \
                         "leaq -128(%%rsp), %%rsp\n\t"                                             \
                         "call ip_cal_tramp1\n\t" INCLPROF_X86_STUB1_RETURN ".long 1b - . - 4\n\t" \
                         ".long %c0 - ., %c1 - .\n\t"                                              \
                         ".popsection" ::"i"(&cal_hook),                                           \
                         "i"(&cal_at)                                                              \
                         : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", \
                           "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",    \
                           "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)",    \
                           "st(7)", "mm0", "mm1", "mm2", "mm3", "mm4", "mm5", "mm6", "mm7");       \
  } while (0)
static void cal_arm(const struct cal_site *s) {
  cal_at = *s;
  cal_hook = s->probe;
}
#define CAL_STUBS 1
#else
#define CAL_PROBE_AT(s) (s)->probe(s)
static void cal_arm(const struct cal_site *s) { (void)s; }
#define CAL_STUBS       0
#endif

/* A function as the plugin instruments it - the entry probe with its
 * descriptor, the body, the exit probe - with x86-64 stubs or with calls, and
 * the same function without the probes. */
static __attribute__((noinline)) uint64_t cal_probed(struct cal_site *s, uint64_t x, int steps) {
  CAL_PROBE_AT(s);
  x = cal_chain(x, steps);
  CAL_PROBE_AT(s);
  return x;
}
static __attribute__((noinline)) uint64_t cal_probed_calls(struct cal_site *s, uint64_t x,
                                                           int steps) {
  s->probe(s);
  x = cal_chain(x, steps);
  s->probe(s);
  return x;
}
/* cppcheck-suppress constParameterCallback ; the type of cal_time's fn */
static __attribute__((noinline)) uint64_t cal_plain(struct cal_site *s, uint64_t x, int steps) {
  __asm__ __volatile__("" ::"r"(s));
  return cal_chain(x, steps);
}

/* The smallest time of 200 calls over CAL_ROUNDS rounds. */
static uint64_t cal_time(uint64_t (*fn)(struct cal_site *, uint64_t, int), struct cal_site *s,
                         int steps) {
  uint64_t best = UINT64_MAX, x = 1;
  for (int round = 0; round < CAL_ROUNDS; round++) {
    uint64_t t0 = ip_tick();
    for (int i = 0; i < 200; i++)
      x = fn(s, x, steps);
    uint64_t t1 = ip_tick();
    best = t1 - t0 < best ? t1 - t0 : best;
  }
  __asm__ __volatile__("" ::"r"(x));
  return best;
}

/* ---- calibration: a call through a pointer whose hooks record nothing --- */
/* The hooks of such a call as probes.c's are, on the calibration's buffer
 * and a set of one known address: the call hook's look-up and its slot, the
 * return hook's look-up. */
static struct ip_rt_thread *cal_thread;
static const struct ip_entry_table *cal_set;
static IP_RT_TEXT void cal_calli(const void *target) {
  struct ip_rt_thread *t = cal_thread;
  if (!ip_entry_in(cal_set, (uintptr_t)target)) {
    t->pos = cal_buf; /* never: the target is known */
    return;
  }
  struct ip_event *p = ip_reserve(t);
  if (IP_UNLIKELY(p >= t->end)) {
    p = cal_buf;
    t->pos = cal_buf + 1;
  }
  p->tick = 0;
  __asm__ __volatile__("" ::: "memory");
  p->arg = IP_PTR_CALL_TAG;
}
static IP_RT_TEXT void cal_reti(const void *target) {
  if (!ip_entry_in(cal_set, (uintptr_t)target))
    cal_thread->pos = cal_buf; /* never */
}
typedef void (*cal_ptr_fn)(const void *);
static cal_ptr_fn volatile cal_calli_hook, cal_reti_hook;

#if CAL_STUBS
/* An indirect call's probe as the plugin builds it: the stub pushes the
 * target and calls the trampoline of any number of probes. */
__asm__(".pushsection .text\n"
        ".type ip_cal_tramp, @function\n"
        "ip_cal_tramp:\n" INCLPROF_X86_TRAMP_BODY ".size ip_cal_tramp, .-ip_cal_tramp\n"
        ".popsection");
#define CAL_PTR_PROBE_AT(hook, target)                                                             \
  __asm__ __volatile__("cmpq $0, %c0(%%rip)\n\t"                                                   \
                       "jne 2f\n"                                                                  \
                       "1:\n\t"                                                                    \
                       ".pushsection .text.unlikely\n"                                             \
                       "2:\n\t"                                                                    \
                       "leaq -128(%%rsp), %%rsp\n\t"                                               \
                       "pushq %1\n\t"                                                              \
                       "call ip_cal_tramp\n\t" INCLPROF_X86_STUB_RETURN ".long 1b - . - 4\n\t"     \
                       ".long %c0 - ., 0\n\t"                                                      \
                       ".long 0\n\t"                                                               \
                       ".popsection" ::"i"(&(hook)),                                               \
                       "r"(target)                                                                 \
                       : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",   \
                         "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",      \
                         "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)",      \
                         "st(7)", "mm0", "mm1", "mm2", "mm3", "mm4", "mm5", "mm6", "mm7")
#else
#define CAL_PTR_PROBE_AT(hook, target) (hook)(target)
#endif

/* The cost of one call through a pointer to a known function, in ticks:
 * what its two hooks, as the plugin's code calls them, add around a call of
 * a function with its probes (probed, on site s) - the smallest time of 200
 * such calls over a few rounds less that of 200 calls without the hooks.
 * The call itself is the program's, made directly in both. */
static double calibrate_ptr_call(struct cal_site *s,
                                 uint64_t (*probed)(struct cal_site *, uint64_t, int)) {
  enum { SET = 8 };
  static struct {
    struct ip_entry_table set;
    /* cppcheck-suppress unusedStructMember ; room for set.key[] */
    _Atomic uintptr_t key[SET];
  } one = {.set = {.mask = SET - 1, .used = 1, .shift = 64 - 3}};
  const void *target = (const void *)probed;
  atomic_store_explicit(&one.set.key[ip_entry_slot(&one.set, (uintptr_t)target)], (uintptr_t)target,
                        memory_order_relaxed);
  struct ip_rt_thread t = {.pos = cal_buf, .end = cal_buf + CAL_EVENTS};
  cal_thread = &t;
  cal_set = &one.set;
  cal_calli_hook = cal_calli;
  cal_reti_hook = cal_reti;
  int stubs = CAL_STUBS && !ip_st.probe_calls;
  uint64_t with = UINT64_MAX, without = UINT64_MAX, x = 1;
  for (int round = 0; round < CAL_ROUNDS; round++) {
    uint64_t t0 = ip_tick();
    if (stubs)
      for (int i = 0; i < 200; i++) {
        CAL_PTR_PROBE_AT(cal_calli_hook, target);
        x = probed(s, x, 0);
        CAL_PTR_PROBE_AT(cal_reti_hook, target);
      }
    else
      for (int i = 0; i < 200; i++) {
        cal_calli_hook(target);
        x = probed(s, x, 0);
        cal_reti_hook(target);
      }
    uint64_t t1 = ip_tick();
    for (int i = 0; i < 200; i++)
      x = probed(s, x, 0);
    uint64_t t2 = ip_tick();
    with = t1 - t0 < with ? t1 - t0 : with;
    without = t2 - t1 < without ? t2 - t1 : without;
  }
  __asm__ __volatile__("" ::"r"(x));
  cal_calli_hook = cal_reti_hook = NULL;
  cal_thread = NULL;
  return with > without ? (double)(with - without) / 200.0 : 0.0;
}

/* Cost of one probe reading the clock by clk (CLK_*) in ticks: the smallest
 * time per probe over a few rounds of back-to-back probes made as the
 * plugin's code makes them (CAL_PROBE_AT).  *hidden: how much of it a probe
 * hides behind a short dependent chain, which leaves the core idle - what
 * the two probes add to an empty function less what they add to such a
 * function. */
static double calibrate_clock(int clk, double *hidden, double *ptr_call) {
  struct ip_rt_thread t = {.pos = cal_buf,
                           .end = cal_buf + CAL_EVENTS,
                           .tr_src = &cal_zero,
                           .kev_drain_at = UINT64_MAX,
                           .pmu_page = (void *)&cal_page};
  static const cal_probe_fn probes[3][3] = {{cal_none_fast, cal_kev_fast, cal_pmu_fast},
                                            {cal_none, cal_kev, cal_pmu},
                                            {cal_none_rdtscp, cal_kev_rdtscp, cal_pmu_rdtscp}};
  int m = ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS ? MODE_KEV
          : ip_st.mode == INCLPROF__TRANSITION_MODE__TRANSITIONS_PMU   ? MODE_PMU
                                                                       : MODE_NONE;
  struct cal_site s = {probes[clk][m], &t};
  cal_arm(&s);
  int stubs = CAL_STUBS && !ip_st.probe_calls;
  uint64_t (*probed)(struct cal_site *, uint64_t, int) = stubs ? cal_probed : cal_probed_calls;
  uint64_t bare = UINT64_MAX;
  for (int round = 0; round < CAL_ROUNDS; round++) {
    uint64_t t0 = ip_tick();
    if (stubs)
      for (int i = 0; i < 200; i++)
        CAL_PROBE_AT(&s);
    else
      for (int i = 0; i < 200; i++)
        s.probe(&s);
    uint64_t t1 = ip_tick();
    bare = t1 - t0 < bare ? t1 - t0 : bare;
  }
  enum { STEPS = 16 };
  double probed0 = (double)cal_time(probed, &s, 0), plain0 = (double)cal_time(cal_plain, &s, 0);
  double probed1 = (double)cal_time(probed, &s, STEPS);
  double plain = (double)cal_time(cal_plain, &s, STEPS);
  double cost = (double)bare / 200.0;
  double pair = probed0 > plain0 ? (probed0 - plain0) / 200.0 : 0.0;
  double added = probed1 > plain ? (probed1 - plain) / 200.0 : 0.0;
  *hidden = added < pair ? pair - added : 0.0;
  if (*hidden > cost)
    *hidden = cost;
  *ptr_call = calibrate_ptr_call(&s, probed);
  return cost;
}

/* The probe cost of the clock read INCLPROF_CLOCK chose; with a fence at the
 * exits only, the mean of the bare and the fenced probe's (a call's two
 * intervals end at one probe of each). */
double ip_probe_calibrate(double *hidden, double *ptr_call) {
  static const int clk[IP_CLOCK_READS] = {CLK_FENCE, CLK_BARE, CLK_RDTSCP, CLK_BARE};
  double cost = calibrate_clock(clk[ip_st.clock_read], hidden, ptr_call);
  if (ip_st.clock_read == IP_CLOCK_EXITS) {
    double fenced_hidden, fenced_ptr,
        fenced = calibrate_clock(CLK_FENCE, &fenced_hidden, &fenced_ptr);
    cost = (cost + fenced) / 2;
    *hidden = (*hidden + fenced_hidden) / 2;
    *ptr_call = (*ptr_call + fenced_ptr) / 2;
  }
  return cost;
}
