/* test_convert_replay.c - the replay's data values on small worked examples
 * (the rules: "The values" in docs/converter.md), exact to the nanosecond: inclusive/exclusive,
 * elapsed/application, percentages, recursion, call-site frames,
 * compensation, repairs, samples, threads and processes. */
#include "convert_fixture.h"
#include "check_main.h"

enum { MOD = 1, F_MAIN = 1, F_FOO, F_BAR, F_WRITEFILE, F_REC };

/* A one-process trace with the functions above (ticks are ns unless tps);
 * hidden, kevent < 0: no probe_hidden_ticks, kevent_cost_ticks in the header. */
static void begin_costs(tg_trace *t, uint32_t pid, double tps, double cost, double hidden,
                        double kevent) {
  tg_begin_costs(t, pid, tps, cost, hidden, kevent, INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS);
  tg_module(t, MOD, "/bin/prog");
  tg_function(t, F_MAIN, MOD, "main", "prog.c", 10);
  tg_function(t, F_FOO, MOD, "foo", "prog.c", 20);
  tg_function(t, F_BAR, MOD, "bar", "prog.c", 30);
  tg_function(t, F_WRITEFILE, 0, "WriteFile", "", 0);
  tg_function(t, F_REC, MOD, "rec", "prog.c", 40);
  tg_thread(t, 100, "main");
}

static void begin(tg_trace *t, uint32_t pid, double tps, double cost) {
  begin_costs(t, pid, tps, cost, -1, -1);
}

static void load_one(ip_session *s, tg_trace *t, int raw) {
  const char *dir = fx_dir();
  fx_load(s, fx_write(dir, "1.ipb", t), raw);
  fx_cleanup(dir);
  tg_free(t);
}

/* Example 1: main 500/50, foo 450/200, bar 250/250; main is 100 %. */
START_TEST(example1_inclusive_exclusive) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 0);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 30, 0, TG_ENTER, F_FOO);  /* main's own 30 */
  tg_ev(&b, 130, 0, TG_ENTER, F_BAR); /* foo's own 100 */
  tg_ev(&b, 380, 0, TG_EXIT, F_BAR);  /* bar 250 */
  tg_ev(&b, 480, 0, TG_EXIT, F_FOO);  /* foo's own 100 more */
  tg_ev(&b, 500, 0, TG_EXIT, F_MAIN); /* main's own 20 more */
  tg_flush(&t, &b);
  tg_trailer(&t, 1, "exit");
  ip_session s;
  load_one(&s, &t, 0);
  fx_assert_values(fx_func(&s, "main"), 500, 50, 500, 50);
  fx_assert_values(fx_func(&s, "foo"), 450, 200, 450, 200);
  fx_assert_values(fx_func(&s, "bar"), 250, 250, 250, 250);
  ck_assert_uint_eq(s.total.el_incl, 500);
  ck_assert_double_eq(ip_pct(fx_func(&s, "main").el_incl, s.total.el_incl), 100.0);
  ck_assert_double_eq(ip_pct(fx_func(&s, "foo").el_excl, s.total.el_incl), 40.0);
  ck_assert_uint_eq(fx_func(&s, "foo").calls, 1);
  ck_assert_uint_eq(s.repairs, 0);
  ip_session_free(&s);
}
END_TEST

/* Example 2, with probe cost 10 ticks:
 *   P1 enter foo 1000, P2 call bar 1100, P3 ret bar 1300,
 *   context switch, P4 call WriteFile 1700 (T), P5 ret 2000 (T), P6 exit 2050.
 * Compensated intervals: 90, 190, 390 (T), 290 (T), 40. */
static void example2(tg_trace *t, double tps) {
  tg_batch b;
  begin(t, 1, tps, 10);
  tg_batch_init(&b, 100);
  tg_ev(&b, 1000, 0, TG_ENTER, F_FOO);
  tg_ev(&b, 1100, 0, TG_CALL, F_BAR);
  tg_ev(&b, 1300, 0, TG_RET, F_BAR);
  tg_ev(&b, 1700, 1, TG_CALL, F_WRITEFILE);
  tg_ev(&b, 2000, 1, TG_RET, F_WRITEFILE);
  tg_ev(&b, 2050, 0, TG_EXIT, F_FOO);
  tg_flush(t, &b);
}

START_TEST(example2_application_values) {
  tg_trace t;
  ip_session s;
  example2(&t, 1e9);
  load_one(&s, &t, 0);
  ip_values foo = fx_func(&s, "foo"), wf = fx_func(&s, "WriteFile"), bar = fx_func(&s, "bar");
  /* foo: Application Exclusive = (P2-P1)+(P6-P5) minus two probe costs. */
  fx_assert_values(foo, 1000, 90 + 390 + 40, 90 + 190 + 40, (100 - 10) + (50 - 10));
  fx_assert_values(wf, 290, 290, 0, 0);
  fx_assert_values(bar, 190, 190, 190, 190);
  ck_assert_uint_eq(s.total.el_incl, 1000);
  ck_assert_uint_eq(s.total.app_incl, 320);
  ck_assert_double_eq(ip_pct(foo.el_incl, s.total.el_incl), 100.0);
  ck_assert_double_eq(ip_pct(foo.el_excl, s.total.el_incl), 52.0);
  ck_assert_double_eq(ip_pct(foo.app_incl, s.total.app_incl), 100.0);
  ck_assert_double_eq(ip_pct(foo.app_excl, s.total.app_incl), 40.625);
  ck_assert_double_eq(ip_pct(wf.el_incl, s.total.el_incl), 29.0);
  ck_assert_double_eq(ip_pct(wf.el_excl, s.total.el_incl), 29.0);
  ck_assert_double_eq(ip_pct(wf.app_incl, s.total.app_incl), 0.0);
  ck_assert_double_eq(ip_pct(wf.app_excl, s.total.app_incl), 0.0);
  ck_assert_uint_eq(wf.calls, 1);
  ip_session_free(&s);
}
END_TEST

START_TEST(example2_raw_and_tick_rate) {
  tg_trace t;
  ip_session s;
  example2(&t, 1e9);
  load_one(&s, &t, 1); /* --raw: no probe cost removed */
  fx_assert_values(fx_func(&s, "foo"), 1050, 100 + 400 + 50, 100 + 200 + 50, 100 + 50);
  ck_assert_int_eq(s.compensated, 0);
  ip_session_free(&s);
  example2(&t, 2e9); /* 2 ticks per ns: every value halves */
  load_one(&s, &t, 0);
  fx_assert_values(fx_func(&s, "foo"), 500, 260, 160, 65);
  fx_assert_values(fx_func(&s, "WriteFile"), 145, 145, 0, 0);
  ip_session_free(&s);
}
END_TEST

/* A recursive function's inclusive time counts each interval once. */
START_TEST(recursion_counted_once) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 0);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 10, 0, TG_ENTER, F_REC);
  tg_ev(&b, 20, 0, TG_ENTER, F_REC);
  tg_ev(&b, 30, 0, TG_ENTER, F_REC);
  tg_ev(&b, 70, 0, TG_EXIT, F_REC);
  tg_ev(&b, 80, 0, TG_EXIT, F_REC);
  tg_ev(&b, 90, 0, TG_EXIT, F_REC);
  tg_ev(&b, 100, 0, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  ip_session s;
  load_one(&s, &t, 0);
  ip_values rec = fx_func(&s, "rec");
  fx_assert_values(rec, 80, 80, 80, 80);
  ck_assert_uint_eq(rec.calls, 3);
  ck_assert_uint_eq(rec.min_call, 40);
  ck_assert_uint_eq(rec.max_call, 80);
  fx_assert_values(fx_func(&s, "main"), 100, 20, 100, 20);
  /* The call tree keeps each depth apart: main/rec 80, main/rec/rec 60, ... */
  const ip_thread *th = &s.threads[0];
  uint64_t want[] = {100, 80, 60, 40};
  uint32_t n = th->nodes[0].first_child;
  for (int depth = 0; depth < 4; depth++) {
    ck_assert_uint_ne(n, IP_NO_NODE);
    ck_assert_uint_eq(th->nodes[n].v.el_incl, want[depth]);
    ck_assert_uint_eq(th->nodes[n].v.calls, 1);
    n = th->nodes[n].first_child;
  }
  ck_assert_uint_eq(n, IP_NO_NODE);
  ip_session_free(&s);
}
END_TEST

/* CALL(g) ENTER(g) ... EXIT(g) RET(g): one frame, one call; the probe-to-probe
 * slivers go to g (CALL->ENTER) and its caller (EXIT->RET). */
START_TEST(call_site_merge) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 0);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 10, 0, TG_CALL, F_FOO);
  tg_ev(&b, 12, 0, TG_ENTER, F_FOO);
  tg_ev(&b, 50, 0, TG_EXIT, F_FOO);
  tg_ev(&b, 53, 0, TG_RET, F_FOO);
  tg_ev(&b, 60, 0, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  ip_session s;
  load_one(&s, &t, 0);
  ip_values foo = fx_func(&s, "foo");
  fx_assert_values(foo, 40, 40, 40, 40);
  ck_assert_uint_eq(foo.calls, 1);
  fx_assert_values(fx_func(&s, "main"), 60, 20, 60, 20);
  ck_assert_uint_eq(s.repairs, 0);
  ck_assert_uint_eq(s.threads[0].n_nodes, 3); /* root, main, main/foo */
  ip_session_free(&s);
}
END_TEST

/* Exits that never came: an exit skipping a frame (longjmp), a stray exit,
 * frames open at the end.  All counted, no value negative or lost. */
START_TEST(missing_exit_repairs) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 0);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 10, 0, TG_ENTER, F_FOO);
  tg_ev(&b, 20, 0, TG_ENTER, F_BAR);
  tg_ev(&b, 40, 0, TG_EXIT, F_FOO);  /* bar never exited: popped */
  tg_ev(&b, 50, 0, TG_EXIT, F_REC);  /* rec not on the stack: ignored */
  tg_ev(&b, 60, 0, TG_ENTER, F_FOO); /* foo, then the thread ends */
  tg_ev(&b, 100, 0, TG_ENTER, F_BAR);
  tg_ev(&b, 130, 0, TG_SAMPLE, 0);
  tg_flush(&t, &b);
  ip_session s;
  load_one(&s, &t, 0);
  ck_assert_uint_eq(s.rep.popped, 1);
  ck_assert_uint_eq(s.rep.unmatched, 1);
  ck_assert_uint_eq(s.rep.closed_at_end, 3);
  ck_assert_uint_eq(s.repairs, 5);
  fx_assert_values(fx_func(&s, "main"), 130, 30, 130, 30);
  fx_assert_values(fx_func(&s, "foo"), 100, 50, 100, 50);
  fx_assert_values(fx_func(&s, "bar"), 50, 50, 50, 50);
  ip_session_free(&s);
}
END_TEST

/* Probe cost is removed from every interval (never below 0: what an
 * interval shorter than the cost lacks is taken from its frame's next one,
 * not from a callee's), a runtime gap from the interval containing it. */
START_TEST(compensation_arithmetic) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 25);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 10, 0, TG_ENTER, F_FOO); /* 10 - 25 -> 0, main owes 15 */
  tg_ev(&b, 110, 0, TG_EXIT, F_FOO); /* 100 - 25 = 75 */
  tg_flush(&t, &b);
  tg_gap(&t, 100, 130, 1130);          /* a 1000-tick flush inside the next interval */
  tg_ev(&b, 1210, 0, TG_ENTER, F_BAR); /* 1100 - 1000 - 25 - 15 = 60 */
  tg_ev(&b, 1245, 1, TG_EXIT, F_BAR);  /* 35 - 25 = 10, transitional */
  tg_ev(&b, 1345, 0, TG_EXIT, F_MAIN); /* 75 */
  tg_flush(&t, &b);
  ip_session s;
  tg_trace copy = {0};
  tg_append(&copy, t.buf, t.len);
  load_one(&s, &t, 0);
  fx_assert_values(fx_func(&s, "main"), 220, 135, 210, 135);
  fx_assert_values(fx_func(&s, "foo"), 75, 75, 75, 75);
  fx_assert_values(fx_func(&s, "bar"), 10, 10, 0, 0);
  ck_assert_uint_eq(s.threads[0].gap_ns, 1000);
  ck_assert_uint_eq(s.gaps, 1);
  ip_session_free(&s);
  load_one(&s, &copy, 1); /* raw: everything kept */
  fx_assert_values(fx_func(&s, "main"), 1345, 10 + 1100 + 100, 1345 - 35, 1210);
  ip_session_free(&s);
}
END_TEST

/* Samples: +1 exclusive to the top, +1 inclusive to every distinct function
 * on the stack (once under recursion); runtime samples counted apart; samples
 * with an empty stack count in the session total only. */
START_TEST(samples_values) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 0);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_SAMPLE, 0); /* empty stack: outside */
  tg_ev(&b, 5, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 10, 0, TG_SAMPLE, 0); /* main */
  tg_ev(&b, 20, 0, TG_ENTER, F_REC);
  tg_ev(&b, 30, 0, TG_ENTER, F_REC);
  tg_ev(&b, 40, 0, TG_SAMPLE, 0); /* main > rec > rec */
  tg_ev(&b, 45, 0, TG_SAMPLE, 1); /* in the runtime: apart */
  tg_ev(&b, 50, 0, TG_EXIT, F_REC);
  tg_ev(&b, 60, 0, TG_SAMPLE, 0); /* main > rec */
  tg_ev(&b, 70, 0, TG_EXIT, F_REC);
  tg_ev(&b, 80, 0, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  ip_session s;
  load_one(&s, &t, 0);
  ip_values rec = fx_func(&s, "rec"), m = fx_func(&s, "main");
  ck_assert_uint_eq(rec.smp_incl, 2);
  ck_assert_uint_eq(rec.smp_excl, 2);
  ck_assert_uint_eq(m.smp_incl, 3);
  ck_assert_uint_eq(m.smp_excl, 1);
  ck_assert_uint_eq(s.samples_in_runtime, 1);
  ck_assert_uint_eq(s.samples_outside, 1);
  ck_assert_uint_eq(s.total.smp_incl, 4);
  ck_assert_double_eq(ip_pct(m.smp_incl, s.total.smp_incl), 75.0);
  ck_assert_double_eq(ip_pct(rec.smp_excl, s.total.smp_excl), 50.0);
  ip_session_free(&s);
}
END_TEST

/* A sample is not a probe: the interval that ends at it keeps its full
 * length; the probe cost comes off the interval that ends at the next probe. */
START_TEST(sample_intervals_keep_probe_cost) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 10);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 100, 0, TG_SAMPLE, 0);    /* 100: no probe cost in it */
  tg_ev(&b, 200, 0, TG_EXIT, F_MAIN); /* 100 - 10 = 90 */
  tg_flush(&t, &b);
  ip_session s;
  load_one(&s, &t, 0);
  fx_assert_values(fx_func(&s, "main"), 190, 190, 190, 190);
  ip_session_free(&s);
}
END_TEST

/* A syscall-dense thread as the runtime records it, with a probe cost c = 10
 * of which h = 6 hides behind the code around it (an interval of code time b
 * reads b + c - min(h, b / 2)), and a kevents record cost of 250.  Per round:
 * foo's body of 40 reads 44; the loop's 2 before the call site reads 11; the
 * system call of 50 (transitional) reads 250 + 50 + 10 - 6; the loop's 4
 * after it reads 12.  Compensated, every value is exactly the program's own:
 * foo 40 per call, main 6 per round, WriteFile's 50 Elapsed only. */
START_TEST(syscall_dense_compensation_is_exact) {
  tg_trace t;
  tg_batch b;
  begin_costs(&t, 1, 1e9, 10, 6, 250);
  tg_batch_init(&b, 100);
  uint64_t now = 0;
  tg_ev(&b, now, 0, TG_ENTER, F_MAIN);
  for (int i = 0; i < 1000; i++) {
    tg_ev(&b, now += 12, 0, TG_ENTER, F_FOO);
    tg_ev(&b, now += 44, 0, TG_EXIT, F_FOO);
    tg_ev(&b, now += 11, 0, TG_CALL, F_WRITEFILE);
    tg_ev(&b, now += 304, 1, TG_RET, F_WRITEFILE);
  }
  tg_ev(&b, now += 12, 0, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  ip_session s;
  load_one(&s, &t, 0);
  fx_assert_values(fx_func(&s, "foo"), 40000, 40000, 40000, 40000);
  fx_assert_values(fx_func(&s, "WriteFile"), 50000, 50000, 0, 0);
  /* main: 1001 loop rounds of 4 after, 1000 of 2 before the call site */
  fx_assert_values(fx_func(&s, "main"), 40000 + 50000 + 6004, 6004, 40000 + 6004, 6004);
  ip_session_free(&s);
}
END_TEST

/* A page-faulting thread: between two calls of foo (300 of code, reading
 * 304) main's own 5 of code takes a fault of 1200 in the kernel; the
 * interval (transitional) reads 5 + 1200 + 250 (the record) + 10 - 6.
 * Compensated, foo is exact and main's Elapsed is exact; the whole interval,
 * main's 5 of user code with it, is out of Application (kevents marks an
 * interval, not a point). */
START_TEST(page_fault_interval_is_exact_but_coarse) {
  tg_trace t;
  tg_batch b;
  begin_costs(&t, 1, 1e9, 10, 6, 250);
  tg_batch_init(&b, 100);
  uint64_t now = 0;
  tg_ev(&b, now, 0, TG_ENTER, F_MAIN);
  for (int i = 0; i < 100; i++) {
    tg_ev(&b, now += 1459, 1, TG_ENTER, F_FOO);
    tg_ev(&b, now += 304, 0, TG_EXIT, F_FOO);
  }
  tg_ev(&b, now += 1459, 1, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  ip_session s;
  load_one(&s, &t, 0);
  fx_assert_values(fx_func(&s, "foo"), 30000, 30000, 30000, 30000);
  fx_assert_values(fx_func(&s, "main"), 30000 + 101 * 1205, 101 * 1205, 30000, 0);
  ip_session_free(&s);
}
END_TEST

/* Intervals from a runtime that did not record probe_hidden_ticks or
 * kevent_cost_ticks: every interval loses the whole probe cost, no more. */
START_TEST(compensation_without_hidden_cost) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 10);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 12, 0, TG_ENTER, F_FOO); /* 2 */
  tg_ev(&b, 56, 1, TG_EXIT, F_FOO);  /* 34, transitional */
  tg_ev(&b, 63, 0, TG_EXIT, F_MAIN); /* 0: shorter than the cost */
  tg_flush(&t, &b);
  ip_session s;
  load_one(&s, &t, 0);
  fx_assert_values(fx_func(&s, "foo"), 34, 34, 0, 0);
  fx_assert_values(fx_func(&s, "main"), 36, 2, 2, 2);
  ip_session_free(&s);
}
END_TEST

/* A library call left open by an exception (CALL with no RET, closed by the
 * enclosing function's EXIT from its landing pad) is unwinding, not a
 * repair; an instrumented frame skipped the same way is a repair. */
START_TEST(unwound_call_sites_are_not_repairs) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 0);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 10, 0, TG_ENTER, F_FOO);
  tg_ev(&b, 20, 0, TG_CALL, F_WRITEFILE); /* throws: no RET */
  tg_ev(&b, 50, 0, TG_EXIT, F_FOO);       /* foo's landing pad */
  tg_ev(&b, 60, 0, TG_ENTER, F_BAR);
  tg_ev(&b, 70, 0, TG_ENTER, F_REC); /* rec longjmps out: no EXIT */
  tg_ev(&b, 90, 0, TG_EXIT, F_BAR);
  tg_ev(&b, 100, 0, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  ip_session s;
  load_one(&s, &t, 0);
  ck_assert_uint_eq(s.rep.unwound, 1);
  ck_assert_uint_eq(s.rep.popped, 1);
  ck_assert_uint_eq(s.repairs, 1);
  fx_assert_values(fx_func(&s, "WriteFile"), 30, 30, 30, 30);
  fx_assert_values(fx_func(&s, "foo"), 40, 10, 40, 10);
  ip_session_free(&s);
}
END_TEST

/* Timestamps that go backwards (a probe in a signal handler) clamp to 0 and
 * the time is counted once; PAUSE..RESUME is not attributed; a missing batch
 * is reported and the interval across it dropped. */
START_TEST(clock_back_pause_and_lost_batch) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 0);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 100, 0, TG_ENTER, F_FOO);
  tg_ev(&b, 110, 0, TG_EXIT, F_FOO);
  tg_ev(&b, 90, 0, TG_ENTER, F_BAR); /* earlier than 110: 0 */
  tg_ev(&b, 150, 0, TG_EXIT, F_BAR); /* 40 after the highest tick */
  tg_ev(&b, 160, 0, TG_PAUSE, 0);
  tg_ev(&b, 900, 0, TG_RESUME, 0);
  tg_ev(&b, 910, 0, TG_SAMPLE, 0);
  tg_flush(&t, &b);
  b.seq++; /* batch 1 lost */
  tg_ev(&b, 5000, 0, TG_SAMPLE, 0);
  tg_ev(&b, 5030, 0, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  ip_session s;
  load_one(&s, &t, 0);
  ck_assert_uint_eq(s.rep.clock_back, 1);
  ck_assert_uint_eq(s.batches_lost, 1);
  fx_assert_values(fx_func(&s, "bar"), 40, 40, 40, 40);
  fx_assert_values(fx_func(&s, "main"), 100 + 10 + 40 + 10 + 10 + 30, 100 + 10 + 10 + 30, 200, 150);
  ip_session_free(&s);
}
END_TEST

/* Two threads in each of two processes of the same program: per-function
 * values and the session total are the sums; functions merge by identity. */
START_TEST(threads_and_processes_summed) {
  const char *dir = fx_dir();
  for (uint32_t pid = 1; pid <= 2; pid++) {
    tg_trace t;
    tg_batch b;
    begin(&t, pid, 1e9, 0);
    for (uint32_t tid = 1; tid <= 2; tid++) {
      uint64_t len = 100 * pid + 10 * tid;
      tg_batch_init(&b, tid);
      tg_ev(&b, 0, 0, TG_ENTER, F_FOO);
      tg_ev(&b, 5, 0, TG_ENTER, F_BAR);
      tg_ev(&b, 5 + len, 1, TG_EXIT, F_BAR);
      tg_ev(&b, 10 + len, 0, TG_EXIT, F_FOO);
      tg_flush(&t, &b);
    }
    char name[16];
    snprintf(name, sizeof name, "%u.ipb", pid);
    fx_write(dir, name, &t);
    tg_free(&t);
  }
  ip_session s;
  fx_load(&s, dir, 0);
  fx_cleanup(dir);
  ck_assert_uint_eq(s.n_processes, 2);
  ck_assert_uint_eq(s.n_threads, 6); /* with the idle "main" thread record of each */
  uint64_t bar = 110 + 120 + 210 + 220;
  fx_assert_values(fx_func(&s, "bar"), bar, bar, 0, 0);
  fx_assert_values(fx_func(&s, "foo"), bar + 40, 40, 40, 40);
  ck_assert_uint_eq(fx_func(&s, "foo").calls, 4);
  ck_assert_uint_eq(s.total.el_incl, bar + 40);
  ck_assert_uint_eq(s.processes[1].total.el_incl, 210 + 220 + 20);
  ip_row *rows;
  size_t n = ip_aggregate(&s, IP_BY_THREAD, NULL, &rows);
  ck_assert_uint_eq(n, 4);
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += rows[i].v.el_incl;
  ck_assert_uint_eq(sum, s.total.el_incl);
  free(rows);
  ip_selection only2 = {.has_pid = 1, .pid = 2};
  n = ip_aggregate(&s, IP_BY_FUNCTION, &only2, &rows);
  ck_assert_uint_eq(n, 2);
  free(rows);
  ip_session_free(&s);
}
END_TEST

/* Module values: inclusive counts an interval once when several of the
 * module's functions are on the stack; exclusive is the top's module. */
START_TEST(module_level_values) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 0);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 10, 0, TG_ENTER, F_FOO);
  tg_ev(&b, 20, 0, TG_CALL, F_WRITEFILE); /* module 0: unknown */
  tg_ev(&b, 50, 1, TG_RET, F_WRITEFILE);
  tg_ev(&b, 60, 0, TG_EXIT, F_FOO);
  tg_ev(&b, 70, 0, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  ip_session s;
  load_one(&s, &t, 0);
  ip_row *rows;
  size_t n = ip_aggregate(&s, IP_BY_MODULE, NULL, &rows);
  ck_assert_uint_eq(n, 2);
  for (size_t i = 0; i < n; i++) {
    const char *path = s.modules[rows[i].key].path;
    if (!strcmp(path, "/bin/prog"))
      fx_assert_values(rows[i].v, 70, 40, 40, 40);
    else
      fx_assert_values(rows[i].v, 30, 30, 0, 0);
  }
  free(rows);
  ip_session_free(&s);
}
END_TEST

/* The per-call visitor (used by timeline exports) sees every completed call
 * with its depth, start and durations on the compensated timeline. */
typedef struct seen_call {
  char name[16];
  uint32_t depth;
  uint64_t start, dur, app;
} seen_call;

static void on_call(void *ctx, const ip_session *s, const ip_thread *t, uint32_t func,
                    uint32_t depth, uint64_t start_ns, uint64_t dur_ns, uint64_t app_ns) {
  seen_call *c = ctx;
  while (c->name[0])
    c++;
  ck_assert_uint_eq(t->tid, 100);
  snprintf(c->name, sizeof c->name, "%s", s->funcs[func].pretty);
  c->depth = depth;
  c->start = start_ns;
  c->dur = dur_ns;
  c->app = app_ns;
}

START_TEST(call_visitor_sees_nested_calls) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 0);
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 30, 0, TG_ENTER, F_FOO);
  tg_ev(&b, 130, 0, TG_ENTER, F_BAR);
  tg_ev(&b, 380, 1, TG_EXIT, F_BAR);
  tg_ev(&b, 480, 0, TG_EXIT, F_FOO);
  tg_ev(&b, 500, 0, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  const char *dir = fx_dir();
  seen_call calls[4];
  memset(calls, 0, sizeof calls);
  ip_call_visitor vis = {calls, on_call};
  ip_load_opts o = {.quiet = 1, .visitor = &vis};
  char *path = (char *)fx_write(dir, "1.ipb", &t);
  ip_session s;
  ck_assert_int_eq(ip_session_load(&s, &path, 1, &o), 0);
  const seen_call want[3] = {
      {"bar", 2, 130, 250, 0}, {"foo", 1, 30, 450, 200}, {"main", 0, 0, 500, 250}};
  for (int i = 0; i < 3; i++) {
    ck_assert_str_eq(calls[i].name, want[i].name);
    ck_assert_uint_eq(calls[i].depth, want[i].depth);
    ck_assert_uint_eq(calls[i].start, want[i].start);
    ck_assert_uint_eq(calls[i].dur, want[i].dur);
    ck_assert_uint_eq(calls[i].app, want[i].app);
  }
  ck_assert_str_eq(calls[3].name, "");
  ip_session_free(&s);
  fx_cleanup(dir);
  tg_free(&t);
}
END_TEST

/* Recording off from 200 to 700 (Window records, written when it happened:
 * before the batches): no thread's time is taken from then, the thread
 * whose events do not mark it included; the process lists its windows. */
START_TEST(windows_off_for_every_thread) {
  tg_trace t;
  tg_batch b;
  begin(&t, 1, 1e9, 0);
  tg_thread(&t, 200, "worker");
  tg_window(&t, 200, 0, "ctl stop");
  tg_window(&t, 700, 1, "ctl start");
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 1000, 0, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  tg_batch_init(&b, 200);
  tg_ev(&b, 100, 0, TG_ENTER, F_FOO);
  tg_ev(&b, 150, 0, TG_ENTER, F_BAR);
  tg_ev(&b, 800, 0, TG_EXIT, F_BAR); /* 650, of which 500 off */
  tg_ev(&b, 900, 0, TG_EXIT, F_FOO);
  tg_flush(&t, &b);
  tg_trailer(&t, 1, "exit");
  ip_session s;
  load_one(&s, &t, 0);
  fx_assert_values(fx_func(&s, "main"), 500, 500, 500, 500);
  fx_assert_values(fx_func(&s, "foo"), 300, 150, 300, 150);
  fx_assert_values(fx_func(&s, "bar"), 150, 150, 150, 150);
  ck_assert_uint_eq(s.processes[0].n_windows, 2);
  ck_assert_str_eq(s.processes[0].windows,
                   "0 ns to 200 ns (start, ctl stop); 700 ns to the end (ctl start)");
  ip_session_free(&s);
}
END_TEST

int main(void) {
  Suite *su = suite_create("convert_replay");
  TCase *tc = tcase_create("values");
  tcase_add_test(tc, example1_inclusive_exclusive);
  tcase_add_test(tc, windows_off_for_every_thread);
  tcase_add_test(tc, example2_application_values);
  tcase_add_test(tc, example2_raw_and_tick_rate);
  tcase_add_test(tc, recursion_counted_once);
  tcase_add_test(tc, call_site_merge);
  tcase_add_test(tc, missing_exit_repairs);
  tcase_add_test(tc, compensation_arithmetic);
  tcase_add_test(tc, samples_values);
  tcase_add_test(tc, sample_intervals_keep_probe_cost);
  tcase_add_test(tc, syscall_dense_compensation_is_exact);
  tcase_add_test(tc, page_fault_interval_is_exact_but_coarse);
  tcase_add_test(tc, compensation_without_hidden_cost);
  tcase_add_test(tc, unwound_call_sites_are_not_repairs);
  tcase_add_test(tc, clock_back_pause_and_lost_batch);
  tcase_add_test(tc, threads_and_processes_summed);
  tcase_add_test(tc, module_level_values);
  tcase_add_test(tc, call_visitor_sees_nested_calls);
  suite_add_tcase(su, tc);
  return ip_check_run(su);
}
