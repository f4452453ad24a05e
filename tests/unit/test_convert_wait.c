/* test_convert_wait.c - the wait breakdown on a worked example (the rules:
 * "Wait breakdown" in docs/converter.md), exact to the nanosecond: off-CPU
 * time from switch pairs, preempted or blocked; the rest of a transitional
 * interval split between system calls and page faults by count (a trace
 * without a fault cost), or the faults given at most their calibrated cost
 * and the system calls the rest, and left unexplained when it had neither,
 * or only faults beyond their cost; records
 * that arrive after a batch's last event go to the next batch's first
 * interval; a batch that lost its records is left unsplit and counted. */
#include "convert_fixture.h"
#include "check_main.h"

enum { MOD = 1, F_MAIN = 1, F_FOO, F_WRITE };

/* fault: the header's fault_cost_ticks, < 0 for none */
static void load(ip_session *s, int kernel_events, double fault) {
  tg_trace t;
  static tg_batch b;
  tg_begin_header_fault(&t, 1, 1e9, 0, -1, -1, fault,
                        INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS, kernel_events, 0);
  tg_module(&t, MOD, "/bin/prog");
  tg_function(&t, F_MAIN, MOD, "main", "prog.c", 10);
  tg_function(&t, F_FOO, MOD, "foo", "prog.c", 20);
  tg_function(&t, F_WRITE, 0, "write", "", 0);
  tg_thread(&t, 100, "main");
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_MAIN);
  tg_ev(&b, 100, 0, TG_ENTER, F_FOO);
  /* foo: a system call that blocks 500 ns; the 400 ns left are the call's */
  tg_kev(&b, 150, INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL);
  tg_kev(&b, 200, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_BLOCKED);
  tg_kev(&b, 700, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  tg_ev(&b, 1000, 1, TG_EXIT, F_FOO);
  /* main: preempted 300 ns, then 2 page faults and a system call share 300 */
  tg_kev(&b, 1100, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
  tg_kev(&b, 1400, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  tg_kev(&b, 1450, INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT);
  tg_kev(&b, 1460, INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT);
  tg_kev(&b, 1470, INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL);
  tg_ev(&b, 1600, 1, TG_CALL, F_WRITE);
  tg_kev(&b, 1650, INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL); /* after the batch's last event */
  tg_flush(&t, &b);
  tg_kev(&b, 1700, INCLPROF__KERNEL_EVENT_KIND__KEV_SYSCALL); /* before the next one's first */
  tg_ev(&b, 1800, 1, TG_RET, F_WRITE);                        /* write: 200 ns of calls */
  /* main: preempted 50 ns; the interval's 50 ns on the CPU have no cause */
  tg_kev(&b, 1820, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
  tg_kev(&b, 1870, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  tg_ev(&b, 1900, 1, TG_EXIT, F_MAIN);
  tg_flush(&t, &b);
  b.klost = 1; /* the ring wrapped: foo's 500 ns stay unsplit */
  tg_ev(&b, 2000, 0, TG_ENTER, F_FOO);
  tg_ev(&b, 2500, 1, TG_EXIT, F_FOO);
  tg_flush(&t, &b);
  const char *dir = fx_dir();
  fx_load(s, fx_write(dir, "1.ipb", &t), 0);
  fx_cleanup(dir);
  tg_free(&t);
}

static void assert_wait(const uint64_t *w, uint64_t pre, uint64_t blk, uint64_t sys, uint64_t pf,
                        uint64_t faults) {
  ck_assert_uint_eq(w[IP_W_PREEMPTED], pre);
  ck_assert_uint_eq(w[IP_W_BLOCKED], blk);
  ck_assert_uint_eq(w[IP_W_SYSCALL], sys);
  ck_assert_uint_eq(w[IP_W_FAULT], pf);
  ck_assert_uint_eq(w[IP_W_FAULTS], faults);
}

START_TEST(split_by_cause) {
  ip_session s;
  load(&s, 1, -1);
  ip_values foo = fx_func(&s, "foo"), main_v = fx_func(&s, "main"), wr = fx_func(&s, "write");
  fx_assert_values(foo, 1400, 1400, 0, 0);
  assert_wait(foo.wait_incl, 0, 500, 400, 0, 0);
  assert_wait(foo.wait_excl, 0, 500, 400, 0, 0);
  assert_wait(wr.wait_excl, 0, 0, 200, 0, 0);
  assert_wait(main_v.wait_excl, 350, 0, 100, 200, 2);
  assert_wait(main_v.wait_incl, 350, 500, 700, 200, 2);
  ck_assert_uint_eq(main_v.el_excl - main_v.app_excl, 700); /* 650 explained, 50 not */
  const ip_thread *th = &s.threads[0];
  assert_wait(th->total.wait_incl, 350, 500, 700, 200, 2);
  ip_row *rows;
  /* /bin/prog (main is always on the stack), the thread and the process:
   * the thread's values; write's module: write's */
  for (int l = IP_BY_MODULE; l <= IP_BY_PROCESS; l++) {
    size_t n = ip_aggregate(&s, (ip_level)l, NULL, &rows);
    for (size_t i = 0; i < n; i++)
      if (l == IP_BY_MODULE && strcmp(s.modules[rows[i].key].path, "/bin/prog"))
        assert_wait(rows[i].v.wait_incl, 0, 0, 200, 0, 0);
      else
        assert_wait(rows[i].v.wait_incl, 350, 500, 700, 200, 2);
    ck_assert_uint_eq(n, l == IP_BY_MODULE ? 2 : 1);
    free(rows);
  }
  ck_assert_uint_eq(th->kernel_lost, 1);
  ck_assert_uint_eq(s.processes[0].kernel_lost, 1);
  ck_assert_int_eq(ip_session_has_wait(&s), 1);
  ip_session_free(&s);
}
END_TEST

/* With the faults' calibrated cost (30 ns): main's 2 faults take 60 ns of
 * its 300 on the CPU, its system call the 240 left; the rest as before. */
START_TEST(faults_take_their_cost) {
  ip_session s;
  load(&s, 1, 30);
  ip_values foo = fx_func(&s, "foo"), main_v = fx_func(&s, "main"), wr = fx_func(&s, "write");
  assert_wait(foo.wait_excl, 0, 500, 400, 0, 0);
  assert_wait(wr.wait_excl, 0, 0, 200, 0, 0);
  assert_wait(main_v.wait_excl, 350, 0, 240, 60, 2);
  assert_wait(main_v.wait_incl, 350, 500, 840, 60, 2);
  ip_session_free(&s);
}
END_TEST

/* Faults alone: at most their cost (100 ns each), never more than the
 * interval's time on the CPU; what they leave is in no column. */
START_TEST(faults_alone_leave_the_rest_unexplained) {
  tg_trace t;
  static tg_batch b;
  tg_begin_header_fault(&t, 1, 1e9, 0, -1, -1, 100, INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS,
                        1, 0);
  tg_module(&t, MOD, "/bin/prog");
  tg_function(&t, F_FOO, MOD, "foo", "prog.c", 20);
  tg_thread(&t, 100, "main");
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_FOO);
  for (int i = 0; i < 3; i++) /* 1 000 ns: 300 of faults, 700 unexplained */
    tg_kev(&b, 100 + 100 * (uint64_t)i, INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT);
  tg_ev(&b, 1000, 1, TG_ENTER, F_FOO);
  for (int i = 0; i < 3; i++) /* 300 ns, 100 of them preempted: 200 of faults */
    tg_kev(&b, 1010 + 10 * (uint64_t)i, INCLPROF__KERNEL_EVENT_KIND__KEV_PAGE_FAULT);
  tg_kev(&b, 1100, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
  tg_kev(&b, 1200, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  tg_ev(&b, 1300, 1, TG_EXIT, F_FOO);
  tg_ev(&b, 1400, 0, TG_EXIT, F_FOO);
  tg_flush(&t, &b);
  const char *dir = fx_dir();
  ip_session s;
  fx_load(&s, fx_write(dir, "1.ipb", &t), 0);
  fx_cleanup(dir);
  tg_free(&t);
  ip_values foo = fx_func(&s, "foo");
  assert_wait(foo.wait_excl, 100, 0, 0, 500, 6);
  ck_assert_uint_eq(foo.el_excl - foo.app_excl, 1300); /* 600 explained, 700 not */
  ip_session_free(&s);
}
END_TEST

/* A trace whose header does not announce kernel-event records: no split. */
START_TEST(no_records_no_split) {
  ip_session s;
  load(&s, 0, -1);
  ip_values main_v = fx_func(&s, "main");
  assert_wait(main_v.wait_incl, 0, 0, 0, 0, 0);
  ck_assert_uint_eq(s.processes[0].kernel_lost, 0);
  ck_assert_int_eq(ip_session_has_wait(&s), 0);
  ip_session_free(&s);
}
END_TEST

/* A switch-in that the clock conversion put after the next event: the
 * off-CPU time ends at that event (the thread ran it), and the late
 * switch-in adds nothing. */
START_TEST(late_switch_in_ends_at_the_event) {
  tg_trace t;
  static tg_batch b;
  tg_begin_kev(&t, 1, 1e9, 0, INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS, 1);
  tg_module(&t, MOD, "/bin/prog");
  tg_function(&t, F_FOO, MOD, "foo", "prog.c", 20);
  tg_thread(&t, 100, "main");
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_FOO);
  tg_kev(&b, 100, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
  tg_ev(&b, 300, 1, TG_EXIT, F_FOO);
  tg_kev(&b, 310, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  tg_ev(&b, 1000, 1, TG_ENTER, F_FOO);
  tg_ev(&b, 1100, 1, TG_EXIT, F_FOO);
  tg_flush(&t, &b);
  const char *dir = fx_dir();
  ip_session s;
  fx_load(&s, fx_write(dir, "1.ipb", &t), 0);
  fx_cleanup(dir);
  tg_free(&t);
  ip_values foo = fx_func(&s, "foo");
  assert_wait(foo.wait_excl, 200, 0, 0, 0, 0);
  ip_session_free(&s);
}
END_TEST

/* A preemption between a probe's load of the ring's head and its clock
 * read: the interval ending at that probe holds the off-CPU time with its T
 * bit clear, the next one has it.  The records place the switch inside the
 * first: it is transitional, its off-CPU time preempted.  Off-CPU time that
 * is not most of a clear interval, or under 20 us (what the clock conversion
 * may misplace), leaves it Application time. */
START_TEST(preempted_before_the_clock_read) {
  enum { F_BAR = F_WRITE + 1 };
  tg_trace t;
  static tg_batch b;
  tg_begin_kev(&t, 1, 1e9, 0, INCLPROF__TRANSITION_MODE__TRANSITIONS_KEVENTS, 1);
  tg_module(&t, MOD, "/bin/prog");
  tg_function(&t, F_FOO, MOD, "foo", "prog.c", 20);
  tg_function(&t, F_BAR, MOD, "bar", "prog.c", 30);
  tg_thread(&t, 100, "main");
  tg_batch_init(&b, 100);
  tg_ev(&b, 0, 0, TG_ENTER, F_FOO);
  tg_ev(&b, 1000, 0, TG_ENTER, F_BAR);
  tg_kev(&b, 2000, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
  tg_kev(&b, 52000, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  tg_ev(&b, 52100, 0, TG_EXIT, F_BAR); /* read the head at 1900, the clock at 52100 */
  tg_ev(&b, 52200, 1, TG_EXIT, F_FOO); /* the head that moved: the bit comes late */
  tg_ev(&b, 60000, 0, TG_ENTER, F_FOO);
  tg_kev(&b, 70000, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
  tg_kev(&b, 80000, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  tg_ev(&b, 160000, 0, TG_EXIT, F_FOO); /* 10 us of 100: not most of it */
  tg_ev(&b, 200000, 0, TG_ENTER, F_FOO);
  tg_kev(&b, 201000, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_OUT_PREEMPTED);
  tg_kev(&b, 209000, INCLPROF__KERNEL_EVENT_KIND__KEV_SWITCH_IN);
  tg_ev(&b, 210000, 0, TG_EXIT, F_FOO); /* 8 us of 10: under the floor */
  tg_flush(&t, &b);
  const char *dir = fx_dir();
  ip_session s;
  fx_load(&s, fx_write(dir, "1.ipb", &t), 0);
  fx_cleanup(dir);
  tg_free(&t);
  ip_values bar = fx_func(&s, "bar"), foo = fx_func(&s, "foo");
  fx_assert_values(bar, 51100, 51100, 0, 0);
  assert_wait(bar.wait_excl, 50000, 0, 0, 0, 0);
  fx_assert_values(foo, 52200 + 100000 + 10000, 1000 + 100 + 100000 + 10000, 1000 + 110000,
                   1000 + 110000);
  ip_session_free(&s);
}
END_TEST

/* --sort by a wait column: the inclusive value, descending. */
START_TEST(sort_by_wait_columns) {
  ip_session s;
  load(&s, 1, -1);
  ip_sort by;
  ck_assert_int_eq(ip_sort_parse("offcpu-preempted", &by), 0);
  ck_assert_int_eq(by, IP_SORT_PREEMPTED);
  ck_assert_int_eq(ip_sort_parse("syscall_inclusive_ns", &by), 0);
  ck_assert_int_eq(by, IP_SORT_SYSCALL);
  ip_row *rows;
  size_t n = ip_aggregate(&s, IP_BY_FUNCTION, NULL, &rows);
  ck_assert_uint_eq(n, 3);
  ip_rows_sort(&s, IP_BY_FUNCTION, rows, n, IP_SORT_SYSCALL); /* main 700, foo 400, write 200 */
  ck_assert_str_eq(s.funcs[rows[0].key].pretty, "main");
  ck_assert_str_eq(s.funcs[rows[1].key].pretty, "foo");
  ck_assert_str_eq(s.funcs[rows[2].key].pretty, "write");
  ip_rows_sort(&s, IP_BY_FUNCTION, rows, n, IP_SORT_NON_APP_INCL); /* main 1800, foo 1400 */
  ck_assert_str_eq(s.funcs[rows[0].key].pretty, "main");
  ck_assert_str_eq(s.funcs[rows[1].key].pretty, "foo");
  free(rows);
  ip_session_free(&s);
}
END_TEST

int main(void) {
  Suite *su = suite_create("convert_wait");
  TCase *tc = tcase_create("wait");
  tcase_add_test(tc, split_by_cause);
  tcase_add_test(tc, no_records_no_split);
  tcase_add_test(tc, faults_take_their_cost);
  tcase_add_test(tc, faults_alone_leave_the_rest_unexplained);
  tcase_add_test(tc, sort_by_wait_columns);
  tcase_add_test(tc, late_switch_in_ends_at_the_event);
  tcase_add_test(tc, preempted_before_the_clock_read);
  suite_add_tcase(su, tc);
  return ip_check_run(su);
}
