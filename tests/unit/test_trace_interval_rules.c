/* test_trace_interval_rules.c - the probe cost's compensation with what a
 * short interval lacked carried over (ip_probe_compensated_carry in
 * include/inclprof/interval_rules.h), on worked sequences: a frame's
 * intervals less the probe's cost each, however many were shorter than it;
 * a callee's debt paid by its caller once it has returned, never a
 * caller's by its callee; the hidden part credited above the cost; a debt
 * paid only from the part of an interval spent on the CPU.  The share of
 * call-dense intervals (ip_dense_run_add) on a clock that ticks in steps of
 * 26 ticks: the same on both sides of the calibrated cost where interval by
 * interval it halves. */
#include <check.h>

#include "check_main.h"
#include "interval_rules.h"

#define FX(t) ((uint64_t)(t) << IP_FX)
enum { C = 28 };

START_TEST(a_frames_short_intervals_are_paid_by_its_long_one) {
  ip_probe_owed o = {0};
  uint64_t sum = 0;
  for (int i = 0; i < 10; i++) /* 18 ticks short each: 180 owed, over six probes' cost */
    sum += ip_probe_compensated_carry(FX(10), FX(C), 0, 3, &o, 0);
  ck_assert_uint_eq(sum, 0);
  ck_assert_uint_eq(o.fx[3], FX(180));
  /* 11 intervals of 10 x 10 + 300 ticks less 11 probes: 92 */
  ck_assert_uint_eq(ip_probe_compensated_carry(FX(300), FX(C), 0, 3, &o, 0), FX(92));
  ck_assert_uint_eq(o.fx[3], 0);
}
END_TEST

START_TEST(a_callees_debt_passes_to_its_caller_not_the_reverse) {
  ip_probe_owed o = {0};
  for (int i = 0; i < 4; i++) /* the caller, at depth 2: 4 x 8 owed */
    ip_probe_compensated_carry(FX(20), FX(C), 0, 2, &o, 0);
  /* its callee at depth 3 keeps its own time: 100 - 28 */
  ck_assert_uint_eq(ip_probe_compensated_carry(FX(100), FX(C), 0, 3, &o, 0), FX(72));
  for (int i = 0; i < 5; i++) /* the callee's short ones: 5 x 18 owed at depth 3 */
    ip_probe_compensated_carry(FX(10), FX(C), 0, 3, &o, 0);
  ck_assert_uint_eq(o.fx[3], FX(90));
  /* back in the caller: 200 - 28 - (32 + 90) */
  ck_assert_uint_eq(ip_probe_compensated_carry(FX(200), FX(C), 0, 2, &o, 0), FX(50));
  ck_assert_uint_eq(o.fx[2], 0);
  ck_assert_uint_eq(o.fx[3], 0);
}
END_TEST

START_TEST(the_hidden_part_is_credited_above_the_cost) {
  ip_probe_owed o = {0};
  /* up to c + h the code is twice the excess, beyond it x - (c - h) */
  ck_assert_uint_eq(ip_probe_compensated_carry(FX(31), FX(C), FX(6), 0, &o, 0), FX(6));
  ck_assert_uint_eq(ip_probe_compensated_carry(FX(50), FX(C), FX(6), 0, &o, 0), FX(28));
  /* a debt is paid from what the credit leaves */
  ip_probe_compensated_carry(FX(18), FX(C), FX(6), 0, &o, 0);
  ck_assert_uint_eq(ip_probe_compensated_carry(FX(50), FX(C), FX(6), 0, &o, 0), FX(18));
}
END_TEST

START_TEST(a_debt_is_paid_only_from_the_time_on_the_cpu) {
  ip_probe_owed o = {0};
  for (int i = 0; i < 10; i++) /* 180 owed */
    ip_probe_compensated_carry(FX(10), FX(C), 0, 1, &o, 0);
  /* 1 000 ticks of which 900 preempted: the debt takes 100 - 28, not 180 */
  ck_assert_uint_eq(ip_probe_compensated_carry(FX(1000), FX(C), 0, 1, &o, FX(900)), FX(900));
  ck_assert_uint_eq(o.fx[1], FX(108));
  /* all of it off the CPU: nothing paid, the debt stays */
  ck_assert_uint_eq(ip_probe_compensated_carry(FX(500), FX(C), 0, 1, &o, FX(500)), FX(472));
  ck_assert_uint_eq(o.fx[1], FX(108));
  /* the next interval on the CPU pays the rest: 300 - 28 - 108 */
  ck_assert_uint_eq(ip_probe_compensated_carry(FX(300), FX(C), 0, 1, &o, 0), FX(164));
  ck_assert_uint_eq(o.fx[1], 0);
}
END_TEST

/* Dense intervals of n intervals of call-dense code read by a clock that
 * ticks in steps of 26 ticks (10 ns at 0.385 ns a tick): one step or two,
 * a quarter of them one; and of the same intervals one by one, each less
 * the cost (ip_probe_compensated), under dense. */
enum { STEP = 26, HIDDEN = 20, DENSE = 13 }; /* ticks: 7.7 ns hidden, 5 ns */
static uint64_t dense_runs(uint64_t cost, int n, int steps_over, uint64_t *one_by_one) {
  ip_dense_run r = {0, 0, 0};
  uint64_t dense = 0;
  *one_by_one = 0;
  for (int i = 0; i < n; i++) {
    uint64_t x = FX(STEP * (steps_over + (i % 4 ? 2 : 1)));
    dense += ip_dense_run_add(&r, x, 1, cost, FX(HIDDEN), FX(DENSE));
    *one_by_one += ip_probe_compensated(x, cost, FX(HIDDEN)) < FX(DENSE);
  }
  return dense;
}

START_TEST(the_dense_share_is_the_same_on_both_sides_of_a_clock_step) {
  uint64_t lower = (uint64_t)(44.4 * (1 << IP_FX)), higher = (uint64_t)(45.7 * (1 << IP_FX));
  uint64_t one;
  /* calibrated at 17.1 ns: interval by interval a quarter dense; by runs all */
  ck_assert_uint_eq(dense_runs(lower, 64 * IP_DENSE_RUN, 0, &one), 64 * IP_DENSE_RUN);
  ck_assert_uint_eq(one, 16 * IP_DENSE_RUN);
  /* at 17.6 ns: every one, by runs too */
  ck_assert_uint_eq(dense_runs(higher, 64 * IP_DENSE_RUN, 0, &one), 64 * IP_DENSE_RUN);
  ck_assert_uint_eq(one, 64 * IP_DENSE_RUN);
  /* a step longer each (10 ns of code more): none, at either cost */
  ck_assert_uint_eq(dense_runs(lower, 64 * IP_DENSE_RUN, 1, &one), 0);
  ck_assert_uint_eq(dense_runs(higher, 64 * IP_DENSE_RUN, 1, &one), 0);
  /* a last run not complete is not counted */
  ck_assert_uint_eq(dense_runs(lower, 2 * IP_DENSE_RUN - 1, 0, &one), IP_DENSE_RUN);
}
END_TEST

START_TEST(a_part_ended_by_a_sample_is_in_its_run) {
  ip_dense_run r = {0, 0, 0};
  uint64_t dense = 0;
  /* 16 intervals of the cost and 2 ticks: dense; one of them split by a
   * sample into 1 000 ticks and the rest: the run's mean holds 64 ticks */
  for (int i = 0; i < IP_DENSE_RUN; i++) {
    if (i == 5)
      ck_assert_uint_eq(ip_dense_run_add(&r, FX(1000), 0, FX(C), FX(HIDDEN), FX(DENSE)), 0);
    dense += ip_dense_run_add(&r, FX(C + 2), 1, FX(C), FX(HIDDEN), FX(DENSE));
  }
  ck_assert_uint_eq(dense, 0);
  for (int i = 0; i < IP_DENSE_RUN; i++)
    dense += ip_dense_run_add(&r, FX(C + 2), 1, FX(C), FX(HIDDEN), FX(DENSE));
  ck_assert_uint_eq(dense, IP_DENSE_RUN);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("trace_interval_rules");
  TCase *tc = tcase_create("carry");
  tcase_add_test(tc, a_frames_short_intervals_are_paid_by_its_long_one);
  tcase_add_test(tc, a_callees_debt_passes_to_its_caller_not_the_reverse);
  tcase_add_test(tc, the_hidden_part_is_credited_above_the_cost);
  tcase_add_test(tc, a_debt_is_paid_only_from_the_time_on_the_cpu);
  tcase_add_test(tc, the_dense_share_is_the_same_on_both_sides_of_a_clock_step);
  tcase_add_test(tc, a_part_ended_by_a_sample_is_in_its_run);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ip_check_run(suite()); }
