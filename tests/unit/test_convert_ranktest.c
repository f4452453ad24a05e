/* test_convert_ranktest.c - the Mann-Whitney U p-values of `inclprof diff`
 * (convert/analysis/ranktest.c) against values worked out by hand: with 5 + 5
 * runs, complete separation happens in 2 of the C(10,5) = 252 orderings. */
#include "analysis/ranktest.h"

#include <check.h>
#include "check_main.h"

START_TEST(complete_separation_of_five_and_five) {
  const double base[] = {10, 11, 12, 13, 14}, slow[] = {30, 31, 32, 33, 34};
  ck_assert_double_eq_tol(ip_mann_whitney_p(base, 5, slow, 5), 2.0 / 252, 1e-12);
  ck_assert_double_eq_tol(ip_mann_whitney_p(slow, 5, base, 5), 2.0 / 252, 1e-12);
}
END_TEST

START_TEST(one_overlap_of_five_and_five) {
  /* U = 1: orderings with U <= 1 are 2 of 252 per tail (U = 0 and U = 1 once each) */
  const double x[] = {1, 2, 3, 4, 6}, y[] = {5, 7, 8, 9, 10};
  ck_assert_double_eq_tol(ip_mann_whitney_p(x, 5, y, 5), 2 * 2.0 / 252, 1e-12);
}
END_TEST

START_TEST(three_and_three) {
  /* the smallest p with 3 + 3 runs: 2 / C(6,3) = 0.1, never below 0.01 */
  const double x[] = {1, 2, 3}, y[] = {7, 8, 9};
  ck_assert_double_eq_tol(ip_mann_whitney_p(x, 3, y, 3), 0.1, 1e-12);
}
END_TEST

START_TEST(same_values_and_empty_sides) {
  const double x[] = {5, 5, 5}, y[] = {5, 5, 5};
  ck_assert_double_eq_tol(ip_mann_whitney_p(x, 3, y, 3), 1.0, 1e-12);
  ck_assert_double_eq_tol(ip_mann_whitney_p(x, 0, y, 3), 1.0, 1e-12);
}
END_TEST

START_TEST(interleaved_is_not_significant) {
  const double x[] = {1, 3, 5, 7, 9}, y[] = {2, 4, 6, 8, 10};
  ck_assert(ip_mann_whitney_p(x, 5, y, 5) > 0.5);
}
END_TEST

START_TEST(large_samples_use_the_normal_approximation) {
  double x[50], y[50];
  for (int i = 0; i < 50; i++) {
    x[i] = i;
    y[i] = i + 100;
  }
  ck_assert(ip_mann_whitney_p(x, 50, y, 50) < 1e-15);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ranktest");
  TCase *tc = tcase_create("mann_whitney");
  tcase_add_test(tc, complete_separation_of_five_and_five);
  tcase_add_test(tc, one_overlap_of_five_and_five);
  tcase_add_test(tc, three_and_three);
  tcase_add_test(tc, same_values_and_empty_sides);
  tcase_add_test(tc, interleaved_is_not_significant);
  tcase_add_test(tc, large_samples_use_the_normal_approximation);
  suite_add_tcase(s, tc);
  return ip_check_run(s);
}
