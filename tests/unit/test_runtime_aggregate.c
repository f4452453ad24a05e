/* test_runtime_aggregate.c - the aggregate mode's call-path tree
 * (runtime/produce/aggregate.c) against the converter's replay of the same
 * events: one made-up event stream (nesting, recursion, call sites joined by
 * their callee's entry, exits that skip frames as an exception does, exits
 * of functions not open, transitional intervals, samples, a pause, empty
 * slots, a tick older than its predecessor, the runtime's own stops; with
 * kevents, kernel-event records, preemptions inside a probe that only the
 * records show, and a buffer that lost them; every other buffer's
 * intervals mostly shorter than the probe's cost, as call-dense code's) is
 * written once as event batches of one thread and once folded into the tree
 * of another thread and written as its ThreadProfile; the converter reads
 * both from the one file.  Every function's calls, samples and repairs are
 * the same, and every time agrees within the rounding of one ns per
 * interval (the replay rounds the thread's timeline to ns at every event,
 * the profile each sum once). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "produce/produce.h"
#include "check_main.h"
#include "model/latency.h"
#include "model/profile.h"

enum { FNS = 12, BUFS = 6, N = 4000 };
static struct inclprof_fn d[FNS];
static const struct inclprof_fn *fns[FNS];
static struct inclprof_tu tu = {INCLPROF_ABI_VERSION, FNS, fns, __FILE__, {0}};
static char names[FNS][16];
static char dir[] = "/tmp/ip_aggregate_XXXXXX";

__attribute__((noinline)) static void target(void) {}

static void start(const char *transitions) {
  ck_assert_ptr_nonnull(mkdtemp(dir));
  setenv("INCLPROF_OUTPUT", dir, 1);
  setenv("INCLPROF_TRANSITIONS", transitions, 1);
  ip_settings_reread();
  for (int i = 0; i < FNS; i++) {
    snprintf(names[i], sizeof names[i], "f%d", i);
    d[i] = (struct inclprof_fn){
        (uint64_t)i + 1,          names[i], names[i], __FILE__, (uint32_t)i + 1, 5,
        INCLPROF_FN_INSTRUMENTED, 0,        NULL};
    fns[i] = &d[i];
  }
  __inclprof_register_tu(&tu);
  ck_assert_int_eq(atomic_load(&ip_st.init_state), 1);
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rnd_state ^= rnd_state << 13;
  rnd_state ^= rnd_state >> 7;
  rnd_state ^= rnd_state << 17;
  return rnd_state;
}

/* The generator's idea of the open frames, to make exits mostly match. */
static int open_fn[4096], depth;

static uint64_t desc(int f, unsigned kind) { return (uint64_t)(uintptr_t)&d[f] | kind; }

/* The next event: intervals of 0 to about 40 000 ticks, one in 60 of
 * 200 000 to 300 000 (where a preemption may hide), a third transitional;
 * with dense_code, under the probe's cost and 8 ticks but the one in 60,
 * and 7 in 8 events a function's entry or exit in a non-transitional
 * interval (long runs of them, as call-dense code makes). */
static int dense_code;
static struct ip_event next_event(uint64_t *tick) {
  uint64_t r = rnd();
  *tick += r % 60 == 7  ? 200000 + r / 4 % 100000
           : dense_code ? r / 4 % (uint64_t)(ip_st.probe_cost_ticks + 8)
           : r % 4 == 0 ? 0
           : r % 4 == 1 ? 30 + r / 4 % 40000
                        : 5 + r / 4 % 300;
  uint64_t t = r / 64 % 97 == 0 ? *tick - 200 : *tick; /* a signal handler's older tick */
  int plain = dense_code && r / 8 % 8 != 0;
  uint64_t t_bit = r / 4096 % 3 == 0 && !plain ? IP_T_BIT : 0;
  unsigned what = (unsigned)(r / (1u << 20) % 200);
  if (plain)
    what = 30 + what % 160;
  int f = (int)(r / (1ull << 30) % FNS);
  uint64_t arg;
  if (what < 4)
    arg = 0; /* an empty slot */
  else if (what < 10)
    arg = (uint64_t)(uintptr_t)target << 3 | (what < 7 ? IP_K_CALL_IND : IP_K_RET_IND);
  else if (what < 16)
    arg = (0x7f0000000000ull + r % 4096) << 4 | (uint64_t)(what == 10) << 3 | IP_K_SAMPLE;
  else if (what == 16)
    arg = (uint64_t)INCLPROF__EVENT_KIND__EV_PAUSE << 3 | IP_K_CONTROL;
  else if (what == 17 || what == 18)
    arg = (uint64_t)INCLPROF__EVENT_KIND__EV_RESUME << 3 | IP_K_CONTROL;
  else if (what < 30) { /* a call site, joined by the callee's entry half of the time */
    arg = desc(f, what % 2 ? IP_K_CALL : IP_K_RET);
  } else if (what < 115 && depth < 4000) {
    open_fn[depth++] = f;
    arg = desc(f, IP_K_ENTER);
  } else if (depth && what < 190) { /* the top frame's exit, sometimes one further down */
    int k = what < 185 || depth < 3 ? depth - 1 : depth - 3;
    arg = desc(open_fn[k], IP_K_EXIT);
    depth = k;
  } else {
    arg = desc(f, IP_K_EXIT); /* maybe not open: ignored */
  }
  return (struct ip_event){t | t_bit, arg};
}

static const ip_thread *thread_of(const ip_session *s, uint32_t tid) {
  const ip_thread *th = ip_session_thread(s, tid);
  ck_assert_msg(th != NULL, "no thread %u", tid);
  return th;
}

static void near(const char *what, uint32_t f, uint64_t trace, uint64_t profile, uint64_t slack) {
  uint64_t diff = trace > profile ? trace - profile : profile - trace;
  ck_assert_msg(diff <= slack, "f%u %s: trace %llu ns, profile %llu ns (slack %llu)", f, what,
                (unsigned long long)trace, (unsigned long long)profile, (unsigned long long)slack);
}

/* Kernel-event records of a buffer whose events end at tick: about one
 * per 20 events, in tick order within (from, to]: system calls, page
 * faults, a switch-out (preempted or blocked) and its switch-in, wake-ups
 * of another thread (no wait), now and then a lost stretch; *wakes: how
 * many wake-ups. */
static size_t made_up_records(struct ip_kev *k, size_t cap, uint64_t from, uint64_t to,
                              size_t *wakes) {
  size_t n = 0;
  *wakes = 0;
  for (uint64_t t = from; n + 2 < cap;) {
    uint64_t r = rnd();
    t += 1 + (to - from) / 200 + r % ((to - from) / 100 + 1);
    if (t >= to)
      break;
    unsigned what = (unsigned)(r >> 20) % 100;
    if (what < 35)
      k[n++] = (struct ip_kev){.tick = t, .kind = INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL};
    else if (what < 55)
      k[n++] = (struct ip_kev){.tick = t, .kind = INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT};
    else if (what < 60) {
      k[n++] = (struct ip_kev){.tick = t, .kind = INCLPROF__KERNEL_EVENT_KIND__KEV_WAKE, .arg = 77};
      ++*wakes;
    } else if (what < 99) {
      k[n++] =
          (struct ip_kev){.tick = t,
                          .kind = what < 80 ? INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED
                                            : INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED};
      t += 1 + r % 50000;
      k[n++] = (struct ip_kev){.tick = t, .kind = INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN};
    } else
      k[n++] = (struct ip_kev){.tick = t, .kind = INCLPROF__KERNEL_EVENT_KIND__KEV_LOST};
  }
  return n;
}

/* The stream through both ways, compared; kevents: with kernel-event
 * records (the wait breakdown), when the machine lets the runtime use them. */
static int by_tick(const void *x, const void *y) {
  uint64_t a = ((const struct ip_kev *)x)->tick, b = ((const struct ip_kev *)y)->tick;
  return a < b ? -1 : a > b;
}

/* A preemption inside a probe, between its read of the ring's head and of
 * the clock: a switch-out and its switch-in over most of a long interval
 * that holds no other record, whose event has no transition bit (the next
 * one has).  Added to the n records at k (room for them in cap), sorted;
 * the new count. */
static size_t preempted_in_probes(struct ip_event *ev, size_t n_ev, struct ip_kev *k, size_t n,
                                  size_t cap) {
  size_t r = 0, n0 = n;
  uint64_t prev = ev[0].tick & ~IP_T_BIT;
  for (size_t i = 1; i < n_ev && n + 2 <= cap; i++) {
    uint64_t t = ev[i].tick & ~IP_T_BIT;
    while (r < n0 && k[r].tick <= prev)
      r++;
    int empty = r == n0 || k[r].tick > t;
    if (t > prev + 150000 && empty && !(ev[i].tick & IP_T_BIT) && ev[i].arg) {
      k[n++] = (struct ip_kev){.tick = prev + 100,
                               .kind = INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED};
      k[n++] = (struct ip_kev){.tick = t - 100, .kind = INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN};
      if (i + 1 < n_ev)
        ev[i + 1].tick |= IP_T_BIT;
    }
    if (t > prev)
      prev = t;
  }
  qsort(k, n, sizeof *k, by_tick);
  return n;
}

static void compare(int kevents) {
  start(kevents ? "kevents" : "none");
  if (kevents && ip_st.mode != INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS) {
    printf("skipped: the wait breakdown: kevents is not usable here (%s)\n", ip_st.note);
    fflush(stdout);
    return;
  }
  uint8_t *scratch = malloc(IP_SCRATCH_BYTES);
  ck_assert_ptr_nonnull(scratch);
  struct ip_rt_thread folder;
  memset(&folder, 0, sizeof folder);
  folder.tid = 2002;
  static struct ip_event ev[N], copy[N];
  uint64_t tick = ip_tick(), events = 0, records = 0, inside = 0;
  static struct ip_kev kev[N];
  for (int b = 0; b < BUFS; b++) {
    uint64_t from = tick;
    dense_code = b % 2;
    for (int i = 0; i < N; i++)
      ev[i] = next_event(&tick);
    /* records up to a little after the buffer's last event (the next
     * interval's), and one buffer whose records were lost */
    size_t wakes = 0;
    struct ip_kev_list kl = {kev, kevents ? made_up_records(kev, N, from, tick + 3000, &wakes) : 0,
                             kevents && b == 3, 0, 0};
    kl.n_wake = wakes;
    /* the kernel's work shows at the next probe: its interval is transitional */
    for (size_t r = 0, i = 0; r < kl.n; r++) {
      while (i < N && (ev[i].tick & ~IP_T_BIT) < kev[r].tick)
        i++;
      if (i < N)
        ev[i].tick |= IP_T_BIT;
    }
    if (kevents && b != 3) {
      size_t had = kl.n;
      kl.n = preempted_in_probes(ev, N, kev, kl.n, N);
      inside += (kl.n - had) / 2;
    }
    if (b == 0 && ev[0].arg == 0)
      ev[0].arg = desc(0, IP_K_ENTER);
    records += kl.lost ? 0 : kl.n;
    memcpy(copy, ev, sizeof ev);
    for (int i = 0; i < N; i++)
      events += ev[i].arg != 0;
    ip_encode_batch(scratch, IP_SCRATCH_BYTES, 2001, (uint64_t)b, ev, N, &kl, 0);
    ip_agg_fold(&folder, copy, N, &kl, 0);
    if (tick < from + 1)
      tick = from + 1;
    if (kl.n && kev[kl.n - 1].tick > tick)
      tick = kev[kl.n - 1].tick; /* the next buffer starts after its records */
    for (int i = 0; i < N; i++)
      ck_assert_uint_eq(copy[i].arg, 0); /* every slot emptied, as encoding does */
    /* the runtime's stop after the buffer: a Gap, and the same to the tree */
    tick += 5000;
    ip_write_gap(2001, tick - 4000, tick - 1000);
    ip_agg_gap(&folder, tick - 4000, tick - 1000);
  }
  ip_agg_write(&folder, 0, 0);
  ip_agg_free(&folder);
  free(scratch);

  ip_session s;
  char *paths[] = {dir};
  ip_load_opts o = {.quiet = 1, .latency = IP_LAT_ELAPSED};
  ck_assert_int_eq(ip_session_load(&s, paths, 1, &o), 0);
  const ip_thread *tr = thread_of(&s, 2001), *pr = thread_of(&s, 2002);
  ck_assert_uint_eq(tr->events, events);
  ck_assert_uint_eq(pr->events, events);
  ck_assert_uint_eq(pr->gaps, tr->gaps);
  near("gap time", 0, tr->gap_ns, pr->gap_ns, tr->gaps); /* rounded per gap */
  ck_assert_uint_eq(pr->rep.popped, tr->rep.popped);
  ck_assert_uint_eq(pr->rep.unmatched, tr->rep.unmatched);
  ck_assert_uint_eq(pr->rep.unwound, tr->rep.unwound);
  ck_assert_uint_eq(pr->rep.closed_at_end, tr->rep.closed_at_end);
  ck_assert_uint_eq(pr->samples_outside, tr->samples_outside);
  ck_assert_uint_eq(pr->kernel_lost, tr->kernel_lost);
  /* samples by address: the same (address, function) pairs and counts */
  ck_assert_uint_eq(pr->n_pcs, tr->n_pcs);
  ck_assert_uint_gt(tr->n_pcs, 10);
  for (size_t i = 0; i < tr->n_pcs; i++) {
    const ip_pc_sample *x = &tr->pcs[i];
    size_t j = 0;
    while (j < pr->n_pcs &&
           !(pr->pcs[j].pc == x->pc && pr->nodes[pr->pcs[j].node].func == tr->nodes[x->node].func))
      j++;
    ck_assert_msg(j < pr->n_pcs && pr->pcs[j].count == x->count, "samples at %#llx",
                  (unsigned long long)x->pc);
  }
  ck_assert_uint_eq(pr->wall_end_ns, tr->wall_end_ns);
  ck_assert_uint_eq(pr->app_intervals, tr->app_intervals);
  ck_assert_uint_eq(pr->dense_intervals, tr->dense_intervals);
  /* dense code's buffers make runs of dense intervals, the others few */
  ck_assert_uint_gt(tr->dense_intervals, tr->app_intervals / 8);
  ck_assert_uint_lt(tr->dense_intervals, tr->app_intervals * 3 / 4);
  near("probe cost removed", 0, tr->probe_removed_ns, pr->probe_removed_ns, 1);
  if (kevents)
    ck_assert_uint_gt(tr->kernel_lost, 1);                 /* a lost buffer, KEV_LOST records */
  ck_assert_uint_gt(tr->rep.popped + tr->rep.unwound, 10); /* the stream skips frames */
  ck_assert_uint_gt(tr->rep.unmatched, 10);
  /* The replay rounds each interval to ns: up to 1 ns per event apart. */
  uint64_t slack = events;
  near("thread Elapsed", 0, tr->total.el_incl, pr->total.el_incl, slack);
  near("thread Application", 0, tr->total.app_incl, pr->total.app_incl, slack);
  ck_assert_uint_gt(tr->total.el_incl, 1000 * slack); /* so the slack is under 0.1 % */
  ck_assert_uint_lt(tr->total.app_incl, tr->total.el_incl);
  ck_assert_uint_eq(pr->n_fn, tr->n_fn);
  uint64_t calls = 0;
  ip_selection sel;
  memset(&sel, 0, sizeof sel);
  sel.has_tid = 1;
  sel.tid = 2001;
  ip_lat_pair *lt = ip_lat_by_function(&s, &sel);
  sel.tid = 2002;
  ip_lat_pair *lp = ip_lat_by_function(&s, &sel);
  for (uint32_t i = 0; i < tr->n_fn; i++) { /* the functions each ran, in function order */
    ck_assert_uint_eq(pr->fn[i].func, tr->fn[i].func);
    uint32_t f = tr->fn[i].func;
    const ip_values *a = &tr->fn[i].v, *b = &pr->fn[i].v;
    ck_assert_uint_eq(b->calls, a->calls);
    ck_assert_uint_eq(b->smp_incl, a->smp_incl);
    ck_assert_uint_eq(b->smp_excl, a->smp_excl);
    near("Elapsed Inclusive", f, a->el_incl, b->el_incl, slack);
    near("Elapsed Exclusive", f, a->el_excl, b->el_excl, slack);
    near("Application Inclusive", f, a->app_incl, b->app_incl, slack);
    near("Application Exclusive", f, a->app_excl, b->app_excl, slack);
    /* a wait is split from an interval's ns here, its ticks there: 2 ns
     * apart at most per interval that records split */
    for (int k = 0; k < IP_WAIT_N; k++) {
      uint64_t w = k == IP_W_FAULTS ? 0 : 2 * records;
      near("a wait (inclusive)", f, a->wait_incl[k], b->wait_incl[k], w);
      near("a wait (exclusive)", f, a->wait_excl[k], b->wait_excl[k], w);
    }
    if (!a->calls)
      continue;
    calls += a->calls;
    near("shortest call", f, a->min_call, b->min_call, 2);
    near("longest call", f, a->max_call, b->max_call, 2);
    ck_assert_uint_eq(lp[f].el.n, lt[f].el.n);
    uint64_t q = ip_lat_quantile(&lt[f].el, 0.5), qp = ip_lat_quantile(&lp[f].el, 0.5);
    near("median call", f, q, qp, q / 64 + 2); /* one bucket */
  }
  ck_assert_uint_gt(calls, 1000);
  if (kevents) { /* the records made a breakdown; preemptions inside probes were found */
    ck_assert_uint_gt(inside, 5);
    ck_assert_uint_gt(tr->total.wait_incl[IP_W_PREEMPTED], 100 * records);
    ck_assert_uint_gt(tr->total.wait_incl[IP_W_BLOCKED], 100 * records);
    ck_assert_uint_gt(tr->total.wait_incl[IP_W_SYSCALL], 300 * records);
    ck_assert_uint_gt(tr->total.wait_incl[IP_W_FAULTS], 10);
  }
  ip_lat_free_all(lt, s.n_funcs);
  ip_lat_free_all(lp, s.n_funcs);
  ip_session_free(&s);
}

START_TEST(the_profile_holds_the_values_of_the_trace) { compare(0); }
END_TEST

START_TEST(and_its_wait_breakdown) { compare(1); }
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_aggregate");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, the_profile_holds_the_values_of_the_trace);
  tcase_add_test(tc, and_its_wait_breakdown);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
