/* test_convert_noise_test.c - `inclprof diff`'s noise test
 * (convert/analysis/noise_test.c): Student's t distribution against table
 * values, and Welch's t-test on log times on runs whose answer is known. */
#include "analysis/noise_test.h"

#include <check.h>
#include <math.h>

#include "check_main.h"

START_TEST(student_t_against_tables) {
  /* two-sided critical values: df 4: 2.776445 (0.05), 4.604095 (0.01);
   * df 10: 3.169273 (0.01); df 1: 63.656741 (0.01) */
  ck_assert_double_eq_tol(ip_t_two_sided(2.776445, 4), 0.05, 1e-6);
  ck_assert_double_eq_tol(ip_t_two_sided(4.604095, 4), 0.01, 1e-6);
  ck_assert_double_eq_tol(ip_t_two_sided(3.169273, 10), 0.01, 1e-6);
  ck_assert_double_eq_tol(ip_t_two_sided(63.656741, 1), 0.01, 1e-6);
  ck_assert_double_eq_tol(ip_t_two_sided(0, 7), 1.0, 1e-12);
  ck_assert_double_eq_tol(ip_t_critical(0.01, 4), 4.604095, 1e-5);
  ck_assert_double_eq_tol(ip_t_critical(0.01, 1e6), 2.575835, 1e-4);
}
END_TEST

START_TEST(three_and_three_can_be_marked) {
  /* A function 4x slower in every run, runs within 1 % of each other: far
   * beyond noise with 3 + 3 runs (a rank test cannot go below 0.1 there). */
  const double base[] = {1000000, 1010000, 990000}, slow[] = {4000000, 4040000, 3960000};
  ck_assert(ip_noise_p(base, 3, slow, 3) < 1e-4);
  ck_assert(ip_noise_p(slow, 3, base, 3) < 1e-4);
}
END_TEST

START_TEST(overlapping_runs_are_noise) {
  const double x[] = {100, 130, 90, 120, 110}, y[] = {105, 125, 95, 115, 112};
  ck_assert(ip_noise_p(x, 5, y, 5) > 0.5);
}
END_TEST

START_TEST(welch_by_hand) {
  /* logs a = {0, 1, 2}, b = {3, 4, 5} (values e^k - 1): means 1 and 4,
   * variances 1 and 1, se = sqrt(2/3), t = 3 / sqrt(2/3) = 3.674235,
   * df = (2/3)^2 / (2 * (1/3)^2 / 2) = 4 */
  const double a[] = {expm1(0), expm1(1), expm1(2)}, b[] = {expm1(3), expm1(4), expm1(5)};
  ck_assert_double_eq_tol(ip_noise_p(a, 3, b, 3), ip_t_two_sided(3.674235, 4), 1e-6);
}
END_TEST

START_TEST(degenerate_sides) {
  const double one[] = {5}, c1[] = {7, 7, 7}, c2[] = {9, 9, 9};
  ck_assert_double_eq(ip_noise_p(one, 1, c1, 3), 1);
  ck_assert_double_eq(ip_noise_p(c1, 3, c1, 3), 1);
  ck_assert_double_eq(ip_noise_p(c1, 3, c2, 3), 0);
}
END_TEST

int main(void) {
  Suite *su = suite_create("convert_noise_test");
  TCase *tc = tcase_create("noise_test");
  tcase_add_test(tc, student_t_against_tables);
  tcase_add_test(tc, three_and_three_can_be_marked);
  tcase_add_test(tc, overlapping_runs_are_noise);
  tcase_add_test(tc, welch_by_hand);
  tcase_add_test(tc, degenerate_sides);
  suite_add_tcase(su, tc);
  return ip_check_run(su);
}
