/* test_trace_interval_rules.c - the probe cost's compensation with what a
 * short interval lacked carried over (ip_probe_compensated_carry in
 * include/inclprof/interval_rules.h), on worked sequences: a frame's
 * intervals less the probe's cost each, however many were shorter than it;
 * a callee's debt paid by its caller once it has returned, never a
 * caller's by its callee; the hidden part credited above the cost; a debt
 * paid only from the part of an interval spent on the CPU. */
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

static Suite *suite(void) {
  Suite *s = suite_create("trace_interval_rules");
  TCase *tc = tcase_create("carry");
  tcase_add_test(tc, a_frames_short_intervals_are_paid_by_its_long_one);
  tcase_add_test(tc, a_callees_debt_passes_to_its_caller_not_the_reverse);
  tcase_add_test(tc, the_hidden_part_is_credited_above_the_cost);
  tcase_add_test(tc, a_debt_is_paid_only_from_the_time_on_the_cpu);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ip_check_run(suite()); }
